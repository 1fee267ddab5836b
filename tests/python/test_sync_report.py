"""What the summary says about writes: the txg and throttle lines of every run that writes,
txg syncs that had not finished, the time a finite workload (nfs-copy) took, and the
warning that the at-risk figures miss writes left in volatile drive caches when flushes
are off (docs/output.md "summary", docs/sync-writes.md "Data at risk and drive write
caches").

The unit tests build small results documents by hand; the ``needs_core`` tests run short
scenarios in the real core to check that the results document carries what the summary
reads (a finished-sync statistic of 0 before any sync ends, nfs-copy's ``finished_ns``).
"""

from __future__ import annotations

import json
import os
import re

import pytest
from typer.testing import CliRunner

from ziosim.report.summary import build_summary, span, summary_json, summary_text
from ziosim.sweep.table import point_metrics

from conftest import ROOT, check_doc_blocks

needs_core = pytest.mark.needs_core
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}

SYNC_NS = {"min": 2_680_000_000, "mean": 6.99e9, "max": 11_300_000_000, "p50": 2_680_000_000,
           "p90": 11_300_000_000, "p99": 11_300_000_000, "p999": 11_300_000_000}
NO_SYNC_NS = {k: 0 for k in SYNC_NS}


def _workload(name="w", kind="random-write", **extra):
    return {"name": name, "kind": kind, "ops": 10, "bytes": 40960, "ops_per_s": 1.0, "bytes_per_s": 4096.0,
            "latency_ns": {"min": 1, "mean": 2.0, "max": 3, "p50": 2, "p90": 3, "p99": 3, "p999": 3},
            "finished": None, "finished_ns": None, **extra}


def _doc(workloads=(), txg=None, zil=None, sim_ns=20_000_000_000):
    return {"sim_time_ns": sim_ns, "events": 1, "leaf_ios": 1, "workloads": list(workloads), "classes": {},
            "leaves": [], "pool": {}, "txg": txg or {"syncs": 0, "sync_ns": NO_SYNC_NS},
            "zil": zil or {"commits": 0, "at_risk": {}}}


def _meta(config=None):
    return {"release": "zfs-2.2", "config": config or {}}


def _text(results, meta=None):
    return summary_text(results, meta or _meta()).splitlines()


# ----------------------------------------------------------------------------- txg lines


def test_a_writer_without_zil_commits_gets_the_txg_lines():
    txg = {"syncs": 3, "sync_ns": SYNC_NS, "delayed_writes": 23549, "blocked_writes": 0}
    lines = _text(_doc([_workload()], txg=txg))
    i = lines.index("txg: syncs=3, delayed_writes=23549, blocked_writes=0")
    assert lines[i + 1] == "  sync: min=2.68s mean=6.99s p50=2.68s p90=11.3s p99=11.3s p99.9=11.3s max=11.3s"
    # No ZIL commit, nothing at risk: those lines stay out.
    assert not any(ln.startswith(("zil:", "at risk:")) for ln in lines)


@pytest.mark.parametrize("kind", ["random-write", "seq-write", "fsync-write", "nfs-copy", "database", "zvol"])
def test_every_writing_kind_gets_the_txg_lines(kind):
    assert any(ln.startswith("txg: ") for ln in _text(_doc([_workload(kind=kind)])))


def test_a_read_only_run_with_scan_syncs_stays_as_it_was():
    # A scan forces txg syncs; they carry no data, and a read-only summary has no txg line.
    txg = {"syncs": 8, "sync_ns": SYNC_NS, "delayed_writes": 0, "blocked_writes": 0}
    lines = _text(_doc([_workload(kind="random-read"), _workload("s", "seq-read")], txg=txg))
    assert not any(ln.startswith("txg:") for ln in lines)


def test_throttled_writes_show_the_txg_lines_whatever_the_kind():
    txg = {"syncs": 0, "sync_ns": NO_SYNC_NS, "delayed_writes": 0, "blocked_writes": 4}
    assert "txg: syncs=0, delayed_writes=0, blocked_writes=4" in _text(_doc([_workload(kind="random-read")], txg=txg))


# ----------------------------------------------------------------------------- no finished sync


def test_no_finished_sync_is_said_not_printed_as_zero():
    txg = {"syncs": 1, "sync_ns": NO_SYNC_NS, "delayed_writes": 0, "blocked_writes": 0}
    results = _doc([_workload(kind="fsync-write")], txg=txg)
    lines = _text(results)
    i = lines.index("txg: syncs=1, delayed_writes=0, blocked_writes=0")
    assert lines[i + 1] == "  sync: none finished"
    assert not any("sync: min=0ns" in ln for ln in lines)
    s = build_summary(results, _meta())
    assert s["txg"]["sync_ns"] is None and s["txg"]["syncs"] == 1
    assert json.loads(summary_json(results, _meta()))["txg"]["sync_ns"] is None


def test_no_finished_commit_is_said_not_printed_as_zero():
    """QA F4: a commit started but unfinished at the stop (or none at all, sync=disabled) gave
    `commit: min=0ns … max=0ns` and zeros in summary.json, where the sweep table has null."""
    zil = {"commits": 1, "commit_latency_ns": NO_SYNC_NS, "flush_latency_ns": NO_SYNC_NS, "at_risk": {}}
    results = _doc([_workload(kind="fsync-write")], zil=zil)
    lines = _text(results)
    assert lines[lines.index(next(ln for ln in lines if ln.startswith("zil: "))) + 1] == "  commit: none finished"
    s = json.loads(summary_json(results, _meta()))["zil"]
    assert s["commit_latency_ns"] is None and s["flush_latency_ns"] is None
    p = point_metrics(results)["point"]
    assert (p["zil_commits"], p["zil_commit_latency_ns_p99"], p["zil_commit_latency_ns_max"]) == (1, None, None)
    done = dict(zil, commit_latency_ns=SYNC_NS)
    assert json.loads(summary_json(_doc([_workload()], zil=done), _meta()))["zil"]["commit_latency_ns"] == SYNC_NS


def test_a_workload_with_no_finished_operation_has_no_latency():
    results = _doc([_workload(ops=0, bytes=0, ops_per_s=0.0, bytes_per_s=0.0, latency_ns=NO_SYNC_NS)])
    lines = _text(results)
    assert lines[lines.index(next(ln for ln in lines if ln.startswith("w: "))) + 1] == "  lat: none finished"
    assert json.loads(summary_json(results, _meta()))["workloads"]["w"]["latency_ns"] is None
    assert json.loads(summary_json(_doc([_workload()]), _meta()))["workloads"]["w"]["latency_ns"]["max"] == 3


def test_spa_sync_flushes_are_in_summary_json():
    """QA F8: docs/output.md promised txg.leaf_flushes and txg.flush_ns_sum; no file had them."""
    txg = {"syncs": 3, "sync_ns": SYNC_NS, "leaf_flushes": 12, "flush_ns_sum": 98_765_432}
    t = json.loads(summary_json(_doc([_workload()], txg=txg), _meta()))["txg"]
    assert (t["leaf_flushes"], t["flush_ns_sum"]) == (12, 98_765_432)


def test_finished_syncs_keep_their_statistics_in_summary_json():
    results = _doc([_workload()], txg={"syncs": 3, "sync_ns": SYNC_NS})
    assert build_summary(results, _meta())["txg"]["sync_ns"]["max"] == 11_300_000_000


def test_sweep_txg_columns_are_null_when_no_sync_finished():
    p = point_metrics(_doc([_workload()], txg={"syncs": 1, "sync_ns": NO_SYNC_NS}))["point"]
    assert p["txg_syncs"] == 1
    assert (p["txg_sync_ns_mean"], p["txg_sync_ns_p99"], p["txg_sync_ns_max"]) == (None, None, None)
    p = point_metrics(_doc([_workload()], txg={"syncs": 3, "sync_ns": SYNC_NS}))["point"]
    assert (p["txg_sync_ns_mean"], p["txg_sync_ns_max"]) == (6.99e9, 11_300_000_000)


# ----------------------------------------------------------------------------- elapsed


def _nfs_config(files=400, start_ns=0):
    return {"workloads": [{"name": "cp", "kind": "nfs-copy", "files": files, "start_ns": start_ns}]}


def test_a_finished_copy_gives_its_elapsed_time_from_its_start():
    w = _workload("cp", "nfs-copy", finished=True, finished_ns=12_100_000_000, files_done=400)
    results, meta = _doc([w]), _meta(_nfs_config(start_ns=1_000_000_000))
    line = next(ln for ln in _text(results, meta) if ln.startswith("cp: "))
    assert line.endswith(", elapsed=11.1s")
    assert build_summary(results, meta)["workloads"]["cp"]["elapsed_ns"] == 11_100_000_000


def test_a_copy_still_running_shows_a_lower_bound_and_no_elapsed_ns():
    w = _workload("cp", "nfs-copy", finished=False, finished_ns=5_000_000_000, files_done=184)
    results, meta = _doc([w], sim_ns=5_000_000_000), _meta(_nfs_config())
    line = next(ln for ln in _text(results, meta) if ln.startswith("cp: "))
    assert line.endswith(", elapsed>5.00s (184 of 400 files)")
    assert build_summary(results, meta)["workloads"]["cp"]["elapsed_ns"] is None


def test_workloads_without_an_end_of_their_own_have_no_elapsed():
    # nfs-copy with files = 0 copies until the run stops; other kinds never end by themselves.
    w = _workload("cp", "nfs-copy", finished=False, finished_ns=20_000_000_000, files_done=900)
    results, meta = _doc([w, _workload()]), _meta(_nfs_config(files=0))
    assert not any("elapsed" in ln for ln in _text(results, meta))
    assert [v["elapsed_ns"] for v in build_summary(results, meta)["workloads"].values()] == [None, None]


# ----------------------------------------------------------------------------- volatile caches

HDD = {"kind": "hdd", "write_cache_enabled": True}
PLP = {"kind": "ssd", "plp": True}
NO_PLP = {"kind": "ssd", "plp": False}


def _pool_config(tunables=None, slog=None, data=HDD, actions=(), logbias=None):
    devices = {"data": data}
    pool = {"vdevs": [{"type": "mirror", "disks": [{"name": "sda", "device": "data"},
                                                   {"name": "sdb", "device": "data"}]}]}
    if slog is not None:
        devices["slog"] = slog
        pool["log"] = [{"type": "disk", "disks": [{"name": "sdc", "device": "slog"}]}]
    c = {"devices": devices, "pool": pool, "tunables": tunables or {}, "actions": list(actions)}
    if logbias:
        c["logbias"] = logbias
    return c


COMMITS = {"commits": 100, "at_risk": {"bytes_max": 0, "bytes_mean": 0.0, "window_ns_max": 0}}


def _warning(config):
    results = _doc([_workload(kind="fsync-write")], zil=COMMITS)
    lines = _text(results, _meta(config))
    at = lines.index("at risk: max=0B, mean=0B, window max=0ns")
    warn = lines[at + 1] if at + 1 < len(lines) and lines[at + 1].startswith("  warning:") else None
    flag = build_summary(results, _meta(config))["zil"]["volatile_cache_unflushed"]
    assert flag == (warn is not None)
    return warn


def test_nocacheflush_on_disks_with_a_write_cache_warns_next_to_at_risk():
    warn = _warning(_pool_config({"zfs_nocacheflush": 1}))
    assert warn == ("  warning: zfs_nocacheflush=1 with volatile write caches (data: sda, sdb): acknowledged "
                    "writes may be only in a drive's cache, which the at-risk figures do not count")


def test_no_warning_while_flushes_are_on_or_the_caches_are_safe():
    assert _warning(_pool_config()) is None
    assert _warning(_pool_config({"zfs_nocacheflush": 1}, data={"kind": "hdd", "write_cache_enabled": False})) is None
    assert _warning(_pool_config({"zfs_nocacheflush": 1}, data=PLP)) is None
    assert _warning(_pool_config({"zfs_nocacheflush": 1}, data={"kind": "simple"})) is None


def test_zil_nocacheflush_looks_at_the_disks_the_zil_writes_to():
    # A PLP SLOG takes the log blocks; the txg sync still flushes the HDDs.
    assert _warning(_pool_config({"zil_nocacheflush": 1}, slog=PLP)) is None
    assert "(slog: sdc)" in _warning(_pool_config({"zil_nocacheflush": 1}, slog=NO_PLP))
    # Without a SLOG the log blocks go to the pool; with logbias=throughput so do INDIRECT blocks.
    assert "(data: sda, sdb)" in _warning(_pool_config({"zil_nocacheflush": 1}))
    assert "(data: sda, sdb)" in _warning(_pool_config({"zil_nocacheflush": 1}, slog=PLP, logbias="throughput"))
    # zfs_nocacheflush drops every flush: the txg's data on the HDDs is not stable either.
    assert "(data: sda, sdb)" in _warning(_pool_config({"zfs_nocacheflush": 1}, slog=PLP))


def test_a_set_action_that_turns_flushes_off_counts_too():
    act = {"at_ns": 10, "do": "set", "tunable": "zfs_nocacheflush", "value": 1}
    assert _warning(_pool_config(actions=[act])) is not None
    assert _warning(_pool_config(actions=[dict(act, value=0)])) is None


def test_many_disks_are_counted_not_listed():
    c = _pool_config({"zfs_nocacheflush": 1})
    c["pool"]["vdevs"][0]["disks"] += [{"name": f"sd{x}", "device": "data"} for x in "cdef"]
    assert "(data: 6 disks)" in _warning(c)


# ----------------------------------------------------------------------------- the real core

SCENARIO = """
[scenario]
name = "w"
stop = "20s"
report_interval = "5s"
[zfs]
release = "zfs-2.2"
[pool]
allocated = "100G"
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "w"
kind = "fsync-write"
size = "4K"
threads = 1
arc_hit = 1
"""


def _run(text, stop=None):
    from ziosim import runner, scenario

    sc = scenario.loads(text, stop=stop)
    r = runner.run(sc)
    return r, runner.meta(sc)


@needs_core
def test_buffered_writer_run_shows_throttle_and_sync_times():
    r, m = _run(SCENARIO.replace('"fsync-write"', '"random-write"'), stop="12s")
    lines = summary_text(r, m).splitlines()
    t = next(ln for ln in lines if ln.startswith("txg: "))
    assert t == (f"txg: syncs={r['txg']['syncs']}, delayed_writes={r['txg']['delayed_writes']}, "
                 f"blocked_writes={r['txg']['blocked_writes']}")
    assert r["zil"]["commits"] == 0 and not any(ln.startswith("zil:") for ln in lines)
    assert lines[lines.index(t) + 1].startswith("  sync: min=") and r["txg"]["sync_ns"]["max"] > 0


@needs_core
def test_core_reports_zero_sync_statistics_before_a_sync_finishes():
    # The first timeout sync starts at 5 s and a 4K-fsync txg on one HDD takes longer than
    # the few ns left: one started, none finished, and the statistics are all 0.
    r, m = _run(SCENARIO, stop="5000000001ns")
    assert r["txg"]["syncs"] == 1 and set(r["txg"]["sync_ns"].values()) == {0}
    assert "  sync: none finished" in summary_text(r, m).splitlines()
    assert build_summary(r, m)["txg"]["sync_ns"] is None


@needs_core
def test_core_commit_unfinished_at_the_stop_is_none_finished_everywhere():
    # 1 ms in, the first fsync's commit is still waiting for its disk (QA F4's run); the
    # results document's txg carries spa_sync's flushes, which summary.json now keeps.
    r, m = _run(SCENARIO, stop="1ms")
    assert r["zil"]["commits"] == 1 and set(r["zil"]["commit_latency_ns"].values()) == {0}
    assert "  commit: none finished" in summary_text(r, m).splitlines()
    s = build_summary(r, m)
    assert s["zil"]["commit_latency_ns"] is None and point_metrics(r)["point"]["zil_commit_latency_ns_p99"] is None
    assert s["workloads"]["w"]["latency_ns"] is None and s["workloads"]["w"]["ops"] == 0
    r, m = _run(SCENARIO, stop="12s")
    s = build_summary(r, m)
    assert s["txg"]["leaf_flushes"] == r["txg"]["leaf_flushes"] > 0
    assert s["txg"]["flush_ns_sum"] == r["txg"]["flush_ns_sum"] > 0


@needs_core
def test_nfs_copy_elapsed_matches_the_sweep_and_the_core():
    from ziosim import runner, scenario

    sc = scenario.loads((ROOT / "scenarios" / "sweeps" / "nfs-server.toml").read_text()
                        .replace("files = 400", 'files = 40\nstart = "1s"'), stop="30s")
    r, m = runner.run(sc), runner.meta(sc)
    w = r["workloads"][0]
    assert w["finished"] is True
    elapsed = w["finished_ns"] - 1_000_000_000
    assert build_summary(r, m)["workloads"]["cp"]["elapsed_ns"] == elapsed
    assert point_metrics(r, sc.config)["workloads"][0]["elapsed_ns"] == elapsed
    assert next(ln for ln in summary_text(r, m).splitlines() if ln.startswith("cp: ")).endswith(
        f", elapsed={span(elapsed)}")


@needs_core
def test_nocacheflush_on_a_real_run_keeps_at_risk_zero_and_warns():
    r, m = _run(SCENARIO, stop="3s")
    assert not build_summary(r, m)["zil"]["volatile_cache_unflushed"]
    r, m = _run(SCENARIO.replace('release = "zfs-2.2"', 'release = "zfs-2.2"\ntunables = { zfs_nocacheflush = 1 }'),
                stop="3s")
    assert r["zil"]["leaf_flushes"] == 0 and r["zil"]["at_risk"]["bytes_max"] == 0
    lines = summary_text(r, m).splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("at risk:"))
    assert lines[at + 1].startswith(
        "  warning: zfs_nocacheflush=1 with volatile write caches (hdd-7200-sata-2014: sda)")
    assert build_summary(r, m)["zil"]["volatile_cache_unflushed"] is True


@needs_core
def test_bundled_cases_and_sweeps_still_load():
    # The release gates on zfs.sync/zfs.logbias and the dirs ≤ files rule refuse none of
    # them (the nfs-zil cases run solaris-2009 with zil_disable and 170 dirs for 1695 files).
    from ziosim import scenario
    from ziosim.sweep import spec

    cases = sorted(p for p in (ROOT / "cases").glob("*/*.toml") if p.name != "case.toml")
    assert any("solaris-2009" in p.read_text() for p in cases)
    for p in cases:
        scenario.load(p)
    for p in sorted((ROOT / "scenarios" / "sweeps").glob("*.toml")):
        assert spec.load(p).points


def _summary_lines(*args):
    """The summary lines `ziosim run ARGS --views summary` prints (after `$ ziosim summary`)."""
    r = _invoke("run", *args, "--views", "summary", "--no-plots", "-q")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    return lines[lines.index("$ ziosim summary") + 1:]


def _cut(lines, keep):
    """The lines whose index `keep` accepts, one "…" for each run left out."""
    out = []
    for i, ln in enumerate(lines):
        if keep(i, ln):
            out.append(ln)
        elif not out or out[-1] != "…":
            out.append("…")
    return out


@needs_core
def test_output_md_summary_examples_are_current(monkeypatch):
    """docs/output.md's sync-write summary examples are what ziosim prints
    (UPDATE_SNAPSHOTS=1 rewrites them)."""
    monkeypatch.chdir(ROOT)
    nfs = "scenarios/sweeps/nfs-server.toml"
    examples = {}
    def head_and_txg_on(lines):  # the run, the copy, and everything from `txg:` on
        cp = next(i for i, ln in enumerate(lines) if ln.startswith("cp: "))
        txg = next(i for i, ln in enumerate(lines) if ln.startswith("txg: "))
        return lambda i: i <= cp + 1 or i >= txg

    def risk_on(lines):  # the at-risk line and what follows it
        at = next(i for i, ln in enumerate(lines) if ln.startswith("at risk: "))
        return lambda i: i >= at

    for name, extra, keep in [("nfs-copy", [], head_and_txg_on),
                              ("unfinished", ["--stop", "5s"], head_and_txg_on),
                              ("nocacheflush", ["--set", "zfs.tunables.zfs_nocacheflush=1"], risk_on)]:
        lines = _summary_lines(nfs, *extra)
        wanted = keep(lines)
        cmd = f"$ ziosim run {nfs} --views summary" + "".join(f" {a}" for a in extra)
        examples[name] = "\n".join([cmd] + _cut(lines, lambda i, ln: wanted(i))) + "\n"
    check_doc_blocks(ROOT / "docs" / "output.md", "summary-example", examples,
                     os.environ.get("UPDATE_SNAPSHOTS") == "1")
    # What the prose says of them.
    assert len(re.findall(r", elapsed=[0-9.]+s\n", examples["nfs-copy"])) == 1
    assert "elapsed>5.00s" in examples["unfinished"] and "  sync: none finished" in examples["unfinished"]
    assert "  warning: zfs_nocacheflush=1" in examples["nocacheflush"]


# ----------------------------------------------------------------------------- the command line


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env=ENV)


@pytest.mark.parametrize("opt, message", [
    ('zfs.sync="always"', 'error: zfs.sync: "always" — allowed on solaris-2009: "standard"'),
    ('zfs.sync="disabled"', 'error: zfs.sync: "disabled" — allowed on solaris-2009: "standard"'),
    ('zfs.logbias="throughput"', 'error: zfs.logbias: "throughput" — allowed on solaris-2009: "latency"'),
])
def test_solaris_2009_refuses_properties_it_predates(opt, message, tmp_path, fake_core):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.replace('"zfs-2.2"', '"solaris-2009"'))
    r = _invoke("run", p, "--no-plots", "-q", "--set", opt)
    assert r.exit_code == 2
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [r.stderr.splitlines()[0]] and r.stderr.startswith(message)
    if "sync" in opt:
        assert "zfs.tunables.zil_disable = 1" in r.stderr


def test_nfs_copy_with_more_dirs_than_files_exits_2(tmp_path, fake_core):
    src = ROOT / "scenarios" / "sweeps" / "nfs-server.toml"
    r = _invoke("run", src, "--no-plots", "-q", "--out", tmp_path / "o",
                "--set", "workload[cp].files=1", "--set", "workload[cp].dirs=5")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "error: workload[0].dirs: 5 — more than files (1): every directory is made for its first file; allowed: 0 … 1"]


@needs_core
def test_the_throttle_limit_reported_is_the_one_the_release_had():
    # zfs_dirty_data_max came with the 2013 write throttle; before it the per-txg write
    # limit (zfs_write_limit_min at first, then throughput x zfs_txg_synctime_ms) bounded a
    # txg, and summary.json says which with the other null.
    r, m = _run(SCENARIO.replace('"fsync-write"', '"random-write"'), stop="3s")
    s = build_summary(r, m)["txg"]
    assert s["dirty_max_bytes"] == r["txg"]["dirty_max_bytes"] > 0 and s["write_limit_bytes"] is None
    old = SCENARIO.replace('"fsync-write"', '"random-write"').replace('release = "zfs-2.2"', 'release = "illumos-2012"')
    r, m = _run(old, stop="3s")
    s = build_summary(r, m)["txg"]
    assert s["dirty_max_bytes"] is None
    assert s["write_limit_bytes"] == r["txg"]["write_limit_bytes"] >= 32 << 20


@needs_core
def test_prefetch_hits_reach_summary_json():
    seq = (SCENARIO.replace('kind = "fsync-write"', 'kind = "seq-read"').replace('size = "4K"', 'size = "128K"')
           .replace("arc_hit = 1", "arc_hit = 0"))
    r, m = _run(seq, stop="3s")
    hits = r["workloads"][0]["prefetch_hits"]
    assert hits > 0 and build_summary(r, m)["workloads"]["w"]["prefetch_hits"] == hits


@needs_core
def test_promoted_prefetches_reach_summary_json():
    # A stream on an aged pool beside 32 random readers: 0.8+ raises the prefetches its
    # reads wait for to SYNC_READ (zio_change_priority); summary.json counts them.
    seq = (SCENARIO.replace('kind = "fsync-write"', 'kind = "seq-read"').replace('size = "4K"', 'size = "128K"')
           .replace("arc_hit = 1", "arc_hit = 0").replace('allocated = "100G"', 'allocated = "100G"\nlayout = "aged"')
           + '[[workload]]\nname = "r"\nkind = "random-read"\nsize = "4K"\nthreads = 32\narc_hit = 0\n')
    r, m = _run(seq, stop="5s")
    n = r["workloads"][0]["prefetch_promoted"]
    assert n > 0 and build_summary(r, m)["workloads"]["w"]["prefetch_promoted"] == n
    r, m = _run(seq.replace('release = "zfs-2.2"', 'release = "zfs-0.7"'), stop="5s")
    assert r["workloads"][0]["prefetch_promoted"] == 0

"""``ziosim import`` of ``zpool iostat -vl``: every release's ``-l`` layout, ``-p`` and ``-q``,
the errors, stragglers found in read ``disk_wait`` and modelled, the choice between it and
``iostat -x``, and a round trip through ziosim's own ``zpool iostat -vl`` of
``scenarios/resilver-straggler.toml`` (docs/import.md, "zpool iostat -l: disk_wait and
stragglers")."""

from __future__ import annotations

import os
import re

import pytest
from typer.testing import CliRunner

from ziosim.errors import ScenarioError
from ziosim.importers import iostat_x, split_sections, zpool_iostat
from ziosim.importers import scenario as isc

from conftest import ROOT, check_doc_blocks

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REL = "tests/python/fixtures/import"
STRAGGLER = "zfs-2.2-iostat-l-straggler.txt"
PARSABLE = "zfs-2.2-iostat-l-parsable-q.txt"
IOSTAT_X = "zfs-2.1-iostat-x-straggler.txt"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
MS = 1_000_000
REV_7200_MS = 60_000 / 7200


def sample(text: str, name: str = "iostat.txt") -> zpool_iostat.IostatSample:
    (sec,) = [s for s in split_sections(name, text) if s.kind == "iostat"]
    (io,) = zpool_iostat.parse(sec)
    return io


def row(io: zpool_iostat.IostatSample, name: str) -> zpool_iostat.IostatRow:
    return next(r for r in io.rows if r.name == name)


def fixture(name: str) -> str:
    return (FIX / name).read_text()


# ----------------------------------------------------------------------------- reading


def test_the_2_2_fixture_last_sample_every_column():
    io = sample(fixture(STRAGGLER))
    assert (io.samples, io.flags, io.layout, io.header_line, io.parsable, io.queues) == (
        2, "-vl", "2.2 and later", 33, False, False)
    assert io.latency_groups == ("total_wait", "disk_wait", "syncq_wait", "asyncq_wait", "scrub", "trim", "rebuild")
    c = row(io, "sdc")
    assert (c.read_ops_per_s, c.write_ops_per_s, c.line) == (58, 7, 40)
    assert c.waits == zpool_iostat.Waits(612 * MS, 14 * MS, 141 * MS, 9 * MS, 38 * MS, 2 * MS, 95 * MS, 3 * MS,
                                         702 * MS, None, None)
    assert io.pool.waits.disk_wait_read_ns == 20 * MS and row(io, "raidz2-0").waits.scrub_wait_ns == 95 * MS
    d = zpool_iostat.disk_stat(c)  # as iostat_x's rule reads it: read disk_wait at the read rate, no %busy
    assert (d.service_ms, d.service_ops_per_s, d.read_ms, d.write_ms, d.busy_percent, d.queue) == (
        141.0, 58.0, 141.0, 9.0, None, None)
    # No %busy: the queueing cannot be taken out, only bounded by the utilisation law.
    assert iostat_x.device_service_ms(d) == 1000.0 / (58 + 7)


def test_parsable_with_queue_columns():
    io = sample(fixture(PARSABLE))
    assert (io.samples, io.flags, io.parsable, io.queues, len(io.latency_groups)) == (2, "-vlqp", True, True, 7)
    d = row(io, "sdd")
    assert (d.alloc_bytes, d.read_ops_per_s, d.read_bytes_per_s) == (0, 31, 4063232)  # -p: a disk's capacity is 0
    assert d.waits.disk_wait_read_ns == 50427256 and d.waits.scrub_wait_ns is None
    assert io.pool.alloc_bytes == 3960000000000


@pytest.mark.parametrize(("tok", "ns"), [("7ns", 7), ("512us", 512_000), ("63ms", 63 * MS), ("3s", 3_000_000_000),
                                         ("-", None)])
def test_times_as_zfs_nicetime_prints_them(tok, ns):
    io = sample(fixture(STRAGGLER).replace("  702ms", tok.rjust(7)))
    assert row(io, "sdc").waits.scrub_wait_ns == ns
    if ns is not None:
        assert zpool_iostat.wait_text(ns) == tok


def test_time_stamps_between_samples_are_read_past():
    text = fixture(STRAGGLER).replace("              capacity", "Sun Jan 14 03:28:41 UTC 2024\n              capacity")
    text = text.replace("$ zpool iostat -vl tank 10 2", "$ zpool iostat -vl -T d tank 10 2")
    assert row(sample(text), "sdc").waits.disk_wait_read_ns == 141 * MS


def test_q_alone_is_read_past():
    lines = fixture(STRAGGLER).splitlines()
    head = ["$ zpool iostat -vq tank 10 2",
            "              capacity     operations     bandwidth    syncq_read    syncq_write   asyncq_read  "
            "asyncq_write   scrubq_read   trimq_write  rebuildq_write",
            "pool        alloc   free   read  write   read  write" + "   pend  activ" * 7,
            "-" * 10 + "  -----" * 20]
    body = [ln[:52] + "      0      1" * 7 for ln in lines[35:43]]
    io = sample("\n".join(head + body + [head[-1]]) + "\n")
    assert (io.flags, io.queues, io.has_latency, row(io, "sdc").waits) == ("-vq", True, False, None)
    assert row(io, "sdc").read_ops_per_s == 58


# ----------------------------------------------------------------------------- every release's layout


@pytest.fixture(scope="module")
def runs():
    """ziosim's own text of the straggler scenario and of the same pool healthy, 10 min each."""
    pytest.importorskip("ziosim._core")
    from ziosim import runner, scenario
    from ziosim.report import render_text

    src = (ROOT / "scenarios" / "resilver-straggler.toml").read_text()
    healthy = src.replace("read_recovery_probability = 1.0", "read_recovery_probability = 0.0")
    assert healthy != src
    out = {}
    for name, text in (("sick", src), ("healthy", healthy)):
        sc = scenario.loads(text, path="resilver-straggler.toml", stop="10m")
        res = runner.run(sc)
        shown = render_text(res, runner.meta(sc), views=("status", "iostat-l"))
        out[name] = (res, "".join(ln for ln in shown.splitlines(keepends=True) if not ln.startswith("# ")))
    return out


def _mean_ns(series: dict, key: str, ops: int, k: int) -> int:
    mid = key.replace("_ns_sum", "_mid_ns_sum")
    total = series[mid if mid in series else key][k]
    return int(total) // ops if ops else 0


@pytest.mark.needs_core
@pytest.mark.parametrize(("release", "groups"), [("zfs-0.7", 5), ("zfs-2.1", 6), ("zfs-2.2", 7)])
@pytest.mark.parametrize("flags", [("-l",), ("-l", "-q")])
def test_every_release_layout_reads_back(runs, release, groups, flags):
    from ziosim.report import iostat
    from ziosim.report.nicenum import zfs_nicetime

    res, _ = runs["sick"]
    io = sample(iostat.zpool_iostat(res, release, flags=flags))
    assert len(io.latency_groups) == groups and io.queues == ("-q" in flags)
    k = len(res["series"]["t_ns"]) - 1
    printed = {r.name: r for r in io.rows}
    for i, leaf in enumerate(res["leaves"]):
        if leaf["name"] not in printed:
            continue  # the new disk of a replacing vdev: ziosim's zpool iostat -v shows the old one only
        s = res["series"]["leaves"][i]
        r, scrub = int(s["read_ops"][k]), int(s.get("class_ops", {}).get("scrub", [0] * (k + 1))[k])
        w = printed[leaf["name"]].waits
        assert zpool_iostat.wait_text(w.disk_wait_read_ns) == zfs_nicetime(_mean_ns(s, "read_disk_wait_ns_sum", r, k))
        assert zpool_iostat.wait_text(w.scrub_wait_ns) == zfs_nicetime(_mean_ns(s, "scrub_wait_ns_sum", scrub, k))
        assert (w.trim_wait_ns, w.rebuild_wait_ns) == (None, None)


# ----------------------------------------------------------------------------- errors


def _error(text: str, name: str = "pasted.txt") -> str:
    with pytest.raises(ScenarioError) as e:
        isc.read_inputs([(name, text)])
    assert "\n" not in e.value.line
    return e.value.line


def error_cases() -> list[tuple[str, str]]:
    """(file name, text) of each documented error."""
    fx = fixture(STRAGGLER).splitlines(keepends=True)
    cut = "".join(fx[:39]) + fx[39][:70].rstrip() + "\n"
    mixed = fixture(STRAGGLER).replace("612ms", "612000000")
    groups = "$ zpool iostat -vl tank 10 2\n              capacity     operations     bandwidth    total_wait     " \
             "disk_wait\npool        alloc   free   read  write   read  write   read  write   read  write\n"
    histo = "$ zpool iostat -vw tank\ntank         total_wait     disk_wait\nlatency      read  write   read  write\n"
    return [(f"{REL}/{STRAGGLER}", cut), (f"{REL}/{STRAGGLER}", mixed), ("pasted.txt", groups), ("pasted.txt", histo)]


def test_errors_name_the_file_line_and_what_is_allowed():
    (cut, mixed, groups, histo) = [_error(t, n) for n, t in error_cases()]
    assert cut.startswith(f'{REL}/{STRAGGLER}:40: "sdc ') and cut.endswith(
        "— expected a zpool iostat row: name and the 17 columns of the header of line 33")
    assert mixed.endswith("— expected total_wait read as the table's other -l figures, times with units (12ms): one "
                          "zpool iostat run per section")
    assert groups.startswith('pasted.txt:2: "capacity     operations     bandwidth    total_wait     disk_wait" — '
                             "expected the groups capacity operations bandwidth, then -l's total_wait")
    assert histo == ('pasted.txt:1: "$ zpool iostat -vw tank" — expected zpool iostat -v with -l and/or -q columns '
                     "(-p allowed); the -w and -r histograms are not read")


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("  612ms", " 6.12ms", "expected total_wait read as zpool iostat -l prints a time (12ms, 512us, 3s; whole ns "
                           "with -p) or -"),
    ("   read  write   wait   wait   wait\n", "   read  write   wait   wait\n",
     "expected the column labels under the groups of line 21: pool alloc free read write read write read write read "
     "write read write read write wait wait wait"),
    ("$ zpool iostat -vl tank 10 2", "$ zpool iostat -vlH tank 10 2", "-H (no header, TABs) is not read"),
])
def test_other_errors(old, new, expected):
    text = fixture(STRAGGLER)
    assert old in text
    assert _error(text.replace(old, new, 1)).endswith(expected)


# ----------------------------------------------------------------------------- the scenario


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def imported(files):
    return isc.read_inputs([(f"{REL}/{n}", fixture(n)) if isinstance(n, str) else n for n in files])


def build(files, presets, **opts) -> str:
    return isc.build(imported(files), isc.Options(**opts), presets)


def header(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("#")]


def block(text: str, start: str = "# zpool iostat -l (") -> list[str]:
    out: list[str] = []
    for ln in header(text):
        if ln.startswith(start) or (out and ln.startswith("#   ")):
            out.append(ln)
        elif out:
            break
    return out


@pytest.mark.needs_core
def test_straggler_in_disk_wait_is_modelled_from_it_as_printed(presets):
    text = build([STRAGGLER], presets)
    assert f"#   {REL}/{STRAGGLER}: zpool iostat -vl (lines 21-44)" in header(text)
    b = block(text)
    assert b[0] == (f"# zpool iostat -l ({REL}/{STRAGGLER} lines 21-44: zpool iostat -vl, the last of 2 samples, "
                    "header line 33):")
    assert "#   sdc (raidz2-0): 58 r/s 22.9M/s, 7 w/s 260K/s; disk_wait read 141ms write 9ms; total_wait read 612ms " \
           "write 14ms" in b
    assert f"#   straggler (slow): sdc in raidz2-0: disk_wait read 141.0 ms at 58.0 r/s; its 5 peers' median 7.0 ms " \
           f"({REL}/{STRAGGLER} line 40)" in b
    assert "no busy test, as zpool iostat prints no %busy" in b[-2]
    # Δ = min(141, 1000 ÷ 65 I/Os/s) − median(7, 6, 8, 7, 7) = 8.4 ms (the utilisation bound:
    # 141 ms per read at 58 reads/s would be 8 s of disk time per second).
    m = float(f"{(1000 / 65 - 7) / REV_7200_MS:.3g}")
    assert m == 1.01
    doc = tomllib.loads(text)
    assert doc["devices"]["sdc-slow"] == {"like": "hdd-7200-sata-2014", "capacity": doc["devices"]["hdd"]["capacity"],
                                          "read_recovery_probability": 1.0,
                                          "read_recovery_revolutions_mean": m}
    assert doc["pool"]["vdevs"][0]["devices"] == ["hdd", "hdd", "sdc-slow", "hdd", "hdd", "hdd"]
    assert "[devices.sdc-slow]   # the straggler sdc (header: zpool iostat -l)" in text
    (assumed,) = [ln for ln in header(text) if ln.startswith("#   straggler sdc: ")]
    assert "zpool iostat prints no %busy, so unlike iostat -x's the wait in the drive's own queue is not taken out " \
           "of its disk_wait, only bounded (a disk serves a command in at most 1 s ÷ its commands per second): the " \
           "slowdown is overestimated when the disk is not busy all the time (the zpool iostat -l block below;" \
           in assumed
    from ziosim import scenario

    scenario.loads(text, path="x.toml")


@pytest.mark.needs_core
def test_parsable_mirror_pool_compares_all_its_mirror_disks(presets):
    text = build([PARSABLE], presets)
    b = block(text)
    (s,) = [ln for ln in b if "straggler (" in ln]
    assert s.startswith("#   straggler (slow): sdd in the pool's mirror disks: disk_wait read 50.4 ms at 31.0 r/s; "
                        "its 3 peers' median 4.5 ms")
    io = sample(fixture(PARSABLE))
    peers = sorted(row(io, n).waits.disk_wait_read_ns for n in ("sda", "sdb", "sdc"))
    d = row(io, "sdd")
    # disk_wait bounded by the utilisation law: at most 1000 ms ÷ its I/Os per second.
    own = min(d.waits.disk_wait_read_ns / MS, 1000 / (d.read_ops_per_s + d.write_ops_per_s))
    delta = own - peers[1] / MS
    assert tomllib.loads(text)["devices"]["sdd-slow"]["read_recovery_revolutions_mean"] == float(
        f"{delta / REV_7200_MS:.3g}")


@pytest.mark.needs_core
def test_no_straggler_model_and_a_release_whose_columns_differ(presets):
    text = build([STRAGGLER], presets, straggler_model=False, release="zfs-2.1")
    assert "-slow" not in text
    b = block(text)
    assert "#   note: its -l columns (scrub trim rebuild waits) are those of 2.2 and later, not of zfs-2.1" in b
    assert b[-1].startswith("#   not modelled: --no-straggler-model; sdc runs at its peers' speed here")


@pytest.mark.needs_core
def test_iostat_x_is_preferred_when_both_are_given(presets):
    text = build([IOSTAT_X, STRAGGLER], presets)
    assert tomllib.loads(text)["devices"]["sdc-slow"]["read_recovery_revolutions_mean"] == 1.78  # iostat -x's
    assert block(text)[-1] == ("#   stragglers: looked for in iostat -x (above), whose %util lets the wait in the "
                               "drive's own queue be taken out; this disk_wait is not used for them")
    assert any(ln.startswith("#   straggler (slow and busy): sdc in raidz2-0: r_await") for ln in
               block(text, "# iostat -x ("))


@pytest.mark.needs_core
def test_zpool_iostat_l_is_used_when_iostat_x_matches_no_disks(presets):
    """by-id names in the pool: sysstat's sda… match none of them, zpool iostat's rows all."""
    names = {f"sd{c}": f"ata-WDC_WD40EFRX-68N32N0_WD-WCC7K{i}" for i, c in enumerate("abcdef")}

    def by_id(text: str) -> str:
        return re.sub(r"(?<=\s)sd[a-f](?=\s)", lambda m: names[m.group(0)], text)

    x = fixture(IOSTAT_X)
    iostat_x_text = x[x.index("$ iostat -x"):]
    text = build([("status-and-zpool-iostat.txt", by_id(fixture(STRAGGLER))), ("iostat-x.txt", iostat_x_text)],
                 presets)
    assert block(text, "# iostat -x (")[-1] == ("#   stragglers: not looked for, as no two matched data disks share a "
                                                "vdev or a vdev type")
    b = block(text)
    assert "#   stragglers: looked for here, as iostat -x (above) matched no two data disks of a vdev or of a vdev " \
           "type" in b
    assert any(ln.startswith(f"#   straggler (slow): {names['sdc']} in raidz2-0: disk_wait read 141.0 ms") for ln in b)
    assert f"{names['sdc']}-slow" in tomllib.loads(text)["devices"]


@pytest.mark.needs_core
def test_without_v_there_are_no_disks_to_compare(presets):
    lines = fixture(STRAGGLER).splitlines()
    text = "\n".join(lines[:19] + ["$ zpool iostat -l tank 10 2"] + lines[32:36]) + "\n"
    b = block(build([("nov.txt", text)], presets))
    assert "#   pool disks with no row: sda, sdb, sdc, sdd, sde, sdf; zpool iostat without -v shows no disks: run " \
           "zpool iostat -vl" in b
    assert "its only sample: the averages since the pool was imported" in b[0]
    assert b[-1] == "#   stragglers: not looked for, as no two matched data disks share a vdev or a vdev type"


# ----------------------------------------------------------------------------- round trip


@pytest.mark.needs_core
def test_round_trip_finds_and_models_the_slow_disk_and_none_when_healthy(runs, presets):
    _, sick = runs["sick"]
    imp = isc.read_inputs([("run.txt", sick)])
    assert imp.iostat.has_latency and imp.iostat_x is None
    models = isc.straggler_models(imp, isc.Options(), presets)
    assert [(sm.straggler.leaf, sm.device) for sm in models] == [("sdc", "sdc-slow")]
    (sm,) = models
    # the scenario gives sdc 2 revolutions of recovery per read; disk_wait counts the queue in the drive as well,
    # so the calibration overestimates it (docs/import.md) — but it is the slow disk, and slower than a healthy one
    # Simulated with 2 revolutions per read: about 2.5 with the utilisation bound (7.4 without).
    assert sm.probability == 1.0 and 1.8 <= sm.revolutions_mean <= 3.2, sm.revolutions_mean
    text = isc.build(imp, isc.Options(), presets)
    assert tomllib.loads(text)["pool"]["vdevs"][0]["devices"] == ["hdd", "hdd", "sdc-slow", "hdd", "hdd", "hdd"]
    from ziosim import scenario

    scenario.loads(text, path="x.toml")
    _, healthy = runs["healthy"]
    himp = isc.read_inputs([("run.txt", healthy)])
    assert isc.straggler_models(himp, isc.Options(), presets) == []
    htext = isc.build(himp, isc.Options(), presets)
    assert "-slow" not in htext
    assert block(htext)[-1].startswith("#   stragglers: none (disk_wait read > 3× the peers' median")


# ----------------------------------------------------------------------------- the command line and docs


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


@pytest.mark.needs_core
def test_cli_refuses_histograms_on_one_line_with_exit_2(tmp_path):
    f = tmp_path / "w.txt"
    f.write_text(error_cases()[-1][1])
    r = _invoke(f)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {f}:1: ") and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.needs_core
def test_cli_stderr_names_the_straggler_found_in_disk_wait():
    r = _invoke(FIX / STRAGGLER, "--no-straggler-model", "--out", os.devnull)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == (f"straggler (slow): sdc in raidz2-0: disk_wait read 141.0 ms at 58.0 r/s; its 5 "
                                        f"peers' median 7.0 ms ({FIX}/{STRAGGLER} line 40); not modelled: "
                                        "--no-straggler-model")


DOC = ROOT / "docs" / "import.md"


@pytest.mark.needs_core
def test_doc_example_is_current(presets):
    text = build([STRAGGLER], presets)
    r = _invoke(FIX / STRAGGLER, "--out", os.devnull)
    assert r.exit_code == 0, r.stderr
    stderr = r.stderr.replace(str(FIX), REL)
    expected = {
        "iostat-l-input": f"$ cat {REL}/{STRAGGLER}\n" + fixture(STRAGGLER),
        "iostat-l-header": f"$ ziosim import {REL}/{STRAGGLER} | sed -n '/^# zpool iostat -l/,/^#   modelled/p'\n"
        + "\n".join(block(text)) + "\n",
        "iostat-l-stderr": f"$ ziosim import {REL}/{STRAGGLER} --out tank.toml\n"
        + stderr.replace(f"wrote {os.devnull}", "wrote tank.toml"),
        "iostat-l-errors": "".join(f"error: {_error(t, n)}\n" for n, t in error_cases()),
    }
    check_doc_blocks(DOC, "iostat-l-example", expected, UPDATE)

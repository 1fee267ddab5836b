"""Text views: snapshots of every view, and headers checked character for character
against zfs-model.md §8.2-8.5 and the zpool_main.c fixed strings.

Snapshots live in tests/python/snapshots/; regenerate them only on purpose with
``UPDATE_SNAPSHOTS=1 pytest tests/python``.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from ziosim.report import VIEWS, render_text
from ziosim.report.iostat import (
    LATENCY_BUCKET_LABELS,
    os_iostat_x,
    pool_rows,
    unsupported_note,
    zpool_iostat,
    zpool_iostat_r,
    zpool_iostat_w,
)
from ziosim.report.quantize import quantize
from ziosim.report.status import zpool_status_config
from ziosim.report.summary import summary_text

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SNAPSHOTS = HERE / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def results():
    return json.loads((FIXTURES / "results_raidz2.json").read_text())


@pytest.fixture(scope="module")
def meta():
    return json.loads((FIXTURES / "meta_raidz2.json").read_text())


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"missing snapshot {path.name}; run with UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(), f"{path.name} differs; UPDATE_SNAPSHOTS=1 if intended"


# ----------------------------------------------------------------------------- headers

SPEC_DEFAULT_HEADER = [  # zfs-model.md §8.2 (2.x)
    "              capacity     operations     bandwidth ",
    "pool        alloc   free   read  write   read  write",
    "----------  -----  -----  -----  -----  -----  -----",
]
SPEC_LATENCY_HEADER_22 = [  # zfs-model.md §8.3
    "              capacity     operations     bandwidth    total_wait     disk_wait    "
    "syncq_wait    asyncq_wait  scrub   trim  rebuild",
    "pool        alloc   free   read  write   read  write   read  write   read  write   "
    "read  write   read  write   wait   wait   wait",
    "----------" + "  -----" * 17,
]
SPEC_QUEUE_HEADER_22 = [  # zfs-model.md §8.4
    "              capacity     operations     bandwidth    syncq_read    syncq_write   "
    "asyncq_read  asyncq_write   scrubq_read   trimq_write  rebuildq_write",
    "pool        alloc   free   read  write   read  write   pend  activ   pend  activ   "
    "pend  activ   pend  activ   pend  activ   pend  activ   pend  activ",
    "----------" + "  -----" * 20,
]
SPEC_HISTO_HEADER_22 = [  # zfs-model.md §8.5
    "tank         total_wait     disk_wait    syncq_wait    asyncq_wait",
    "latency      read  write   read  write   read  write   read  write  scrub   trim  rebuild",
    "----------  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----",
]
SPEC_HISTO_END = "-" * 87


def test_default_header_matches_spec(results):
    assert zpool_iostat(results, "zfs-2.2").splitlines()[:3] == SPEC_DEFAULT_HEADER


def test_latency_header_22_matches_spec(results):
    assert zpool_iostat(results, "zfs-2.2", flags=("-l",)).splitlines()[:3] == \
        SPEC_LATENCY_HEADER_22


def test_queue_header_22_matches_spec(results):
    assert zpool_iostat(results, "zfs-2.2", flags=("-q",)).splitlines()[:3] == \
        SPEC_QUEUE_HEADER_22


def test_histogram_block_22_matches_spec(results):
    lines = zpool_iostat_w(results, "zfs-2.2").splitlines()
    assert lines[0] == ""  # zpool prints a newline before each histogram block
    assert lines[1:4] == SPEC_HISTO_HEADER_22
    labels = [line.split()[0] for line in lines[4:4 + 37]]
    assert labels == list(LATENCY_BUCKET_LABELS)
    assert lines[4 + 37] == SPEC_HISTO_END
    assert len(lines) == 4 + 37 + 1


def test_latency_columns_by_release(results):
    # 0.7: scrub only; 0.8-2.1: + trim; 2.2: + rebuild (ZM at each tag)
    top = {r: zpool_iostat(results, r, flags=("-l",)).splitlines()[0].split()
           for r in ("zfs-0.7", "zfs-0.8", "zfs-2.1", "zfs-2.2")}
    assert top["zfs-0.7"][-1] == "scrub"
    assert top["zfs-0.8"][-2:] == ["scrub", "trim"]
    assert top["zfs-2.1"][-2:] == ["scrub", "trim"]
    assert top["zfs-2.2"][-3:] == ["scrub", "trim", "rebuild"]


def test_histogram_labels_07(results):
    lines = zpool_iostat_w(results, "zfs-0.7").splitlines()
    assert lines[1] == "tank         total_wait     disk_wait    sync_queue    async_queue"
    assert lines[2] == "latency      read  write   read  write   read  write   read  write  scrub"


def test_request_size_rows(results):
    lines = zpool_iostat_r(results, "zfs-2.2").splitlines()
    assert lines[2].startswith("req_size      ind    agg")
    labels = [line.split()[0] for line in lines[4:4 + 16]]
    assert labels == ["512", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K",
                      "512K", "1M", "2M", "4M", "8M", "16M"]


def test_legacy_header_is_zpool_fixed_strings(results):
    # print_iostat_header in ZM@zfs-0.6.5 and illumos: "operations    bandwidth" (four
    # spaces, no trailing blank), unlike the computed 0.7+ header.
    lines = zpool_iostat(results, "zfs-0.6.5").splitlines()
    assert lines[:3] == [
        "               capacity     operations    bandwidth",
        "pool        alloc   free   read  write   read  write",
        "----------  -----  -----  -----  -----  -----  -----",
    ]
    assert zpool_iostat(results, "solaris-2009").splitlines()[1] == \
        "pool         used  avail   read  write   read  write"


def test_top_level_names_by_release(results):
    assert [r.name for r in pool_rows(results, "zfs-2.2")][:2] == ["tank", "raidz2-0"]
    assert [r.name for r in pool_rows(results, "zfs-2.1")][:2] == ["tank", "raidz2"]


def test_unsupported_views_print_a_note(results, meta):
    m = dict(meta, release="illumos-2014")
    text = render_text(results, m, views=("iostat", "iostat-l", "iostat-q", "iostat-w"))
    notes = [line for line in text.splitlines() if line.startswith("note:")]
    assert len(notes) == 3
    assert "illumos-2014" in notes[0] and "-l" in notes[0]
    assert unsupported_note("zfs-0.7", "-l") is None
    # asked for -l alone, an old release shows the note and then its default view, once
    alone = render_text(results, m, views=("iostat-l", "iostat-w")).splitlines()
    assert alone[3] == "$ zpool iostat -vl tank 10"
    assert alone[4].startswith("note: zpool in illumos-2014 has no `zpool iostat -l`")
    assert alone[5] == "               capacity     operations    bandwidth"
    assert sum(1 for line in alone if line.startswith("tank ")) == 3  # 3 samples, not 6


# ----------------------------------------------------------------------------- numbers


def test_pool_row_adds_up_leaves_per_second(results):
    series = results["series"]
    interval = series["interval_ns"]
    first_block = zpool_iostat(results, "zfs-2.2", samples=[1]).splitlines()
    tank = first_block[3].split()
    read_ops = sum(s["read_ops"][1] for s in series["leaves"][:6])
    assert tank[0] == "tank"
    assert int(tank[3]) == read_ops * 1_000_000_000 // interval
    sda = first_block[5].split()
    assert sda[:3] == ["sda", "-", "-"]
    assert int(sda[3]) == series["leaves"][0]["read_ops"][1] * 1_000_000_000 // interval


def test_latency_cell_is_the_interval_histogram_midpoint_average(results):
    """zpool's single_histo_average: each command at its log2 bucket's midpoint, summed over
    the interval and divided (floor) by the count — not the exact mean."""
    import copy

    from ziosim.report.nicenum import zfs_nicetime

    s = results["series"]["leaves"][0]
    line = zpool_iostat(results, "zfs-2.2", flags=("-l",), samples=[2]).splitlines()[5]
    cells = line.split()
    assert cells[0] == "sda"
    assert cells[7] == zfs_nicetime(s["read_total_wait_mid_ns_sum"][2] // s["read_ops"][2])
    assert cells[15] == zfs_nicetime(s["scrub_wait_mid_ns_sum"][2] // s["class_ops"]["scrub"][2])
    assert s["read_total_wait_mid_ns_sum"][2] != s["read_total_wait_ns_sum"][2]
    # A results document without the midpoint sums (older ones) gets the exact means.
    old = copy.deepcopy(results)
    for leaf in old["series"]["leaves"]:
        for key in [k for k in leaf if k.endswith("_mid_ns_sum")]:
            del leaf[key]
    cells = zpool_iostat(old, "zfs-2.2", flags=("-l",), samples=[2]).splitlines()[5].split()
    assert cells[7] == zfs_nicetime(s["read_total_wait_ns_sum"][2] // s["read_ops"][2])


def test_histogram_counts_are_whole_run_sums(results):
    lines = zpool_iostat_w(results, "zfs-2.2").splitlines()
    row_4ms = next(line for line in lines if line.startswith("4ms "))
    scrub_4ms = sum(leaf["classes"].get("scrub", {}).get("queue_wait_log2", [0] * 37)[21]
                    for leaf in results["leaves"][:6])
    assert row_4ms.split()[9] == str(scrub_4ms)


# ----------------------------------------------------------------------------- quantize


def _case_blocks() -> dict[str, list[str]]:
    blocks, name = {}, None
    for line in (FIXTURES / "dtrace_scrub_vfs_latency.txt").read_text().splitlines():
        if line.startswith("## "):
            name = line[3:]
            blocks[name] = []
        elif name and not line.startswith("#"):
            blocks[name].append(line)
    return blocks


@pytest.mark.parametrize("block", ["before", "during", "after"])
def test_quantize_reproduces_dtrace(block):
    lines = _case_blocks()[block]
    counts = [0] * 64
    for line in lines[1:]:
        value, rest = line.split("|")
        counts[int(value).bit_length() - 1] = int(rest.split()[-1])
    ours = quantize(counts).splitlines()
    # The forum dropped DTrace's trailing spaces (count is "%-9lld"); everything else,
    # including every bar length, must match.
    assert [line.rstrip() for line in ours] == lines
    assert ours[0].endswith("count    ")


def test_quantize_edges():
    only_first = quantize([5] + [0] * 63).splitlines()
    assert [line.split("|")[0].strip() for line in only_first[1:]] == ["0", "1", "2"]
    assert only_first[2] == f"{1:16d} |{'@' * 40} {5:<9d}"
    empty = quantize([0] * 64).splitlines()
    assert [line.split("|")[0].strip() for line in empty[1:]] == ["-1", "0", "1"]


# ----------------------------------------------------------------------------- snapshots

SNAPSHOT_CASES = [
    ("zfs-2.2", "status"), ("zfs-2.2", "iostat"), ("zfs-2.2", "iostat-l"),
    ("zfs-2.2", "iostat-q"), ("zfs-2.2", "iostat-w"), ("zfs-2.2", "iostat-r"),
    ("zfs-2.2", "latency"), ("zfs-2.2", "summary"),
    ("zfs-2.1", "iostat-l"), ("zfs-0.8", "iostat-q"), ("zfs-0.7", "iostat-w"),
    ("zfs-0.7", "iostat-r"), ("zfs-0.6.5", "iostat"), ("illumos-2014", "iostat-l"),
    ("solaris-2009", "status"), ("solaris-2009", "iostat"),
    ("zfs-2.3", "status-json"), ("zfs-2.3", "status-json-int"),
]


@pytest.mark.parametrize(("release", "view"), SNAPSHOT_CASES)
def test_view_snapshot(results, meta, release, view):
    m = dict(meta, release=release)
    check_snapshot(f"{release}__{view}", render_text(results, m, views=(view,)))


@pytest.mark.parametrize("platform", ["linux", "freebsd", "illumos"])
def test_os_iostat_snapshot(results, meta, platform):
    m = dict(meta, platform=platform)
    check_snapshot(f"iostat-x__{platform}", render_text(results, m, views=("iostat-x",)))


def test_verbose_histograms_snapshot(results):
    check_snapshot("zfs-2.2__iostat-wv", zpool_iostat_w(results, "zfs-2.2", verbose=True))


def test_default_run_output_snapshot(results, meta):
    check_snapshot("zfs-2.2__default", render_text(results, meta))


def test_all_views_render_for_every_release(results, meta):
    from ziosim.report.releases import RELEASES, has_json_status

    for release in RELEASES:
        views = VIEWS if has_json_status(release) else tuple(v for v in VIEWS if not v.startswith("status-json"))
        text = render_text(results, dict(meta, release=release), views=views)
        assert f"release {release}" in text.splitlines()[0]


def test_json_views_are_refused_before_2_3(results, meta):
    """A release without ``zpool status -j`` cannot print JSON: one line naming the view,
    the release and what is allowed (the CLI prints it after ``--views:`` and exits 2)."""
    with pytest.raises(ValueError) as e:
        render_text(results, dict(meta, release="zfs-2.2"), views=("iostat", "status-json-int"))
    assert str(e.value) == ("views: status-json-int is zpool status -j, which release zfs-2.2 lacks (added in "
                            "OpenZFS 2.3.0); allowed: release zfs-2.3, or the view status")


def test_render_text_header_and_errors(results, meta):
    text = render_text(results, meta, views=("summary",))
    first = text.splitlines()[0]
    for part in ("ziosim 0.1.0", "release zfs-2.2", "seed 0", "3f2a9c0d5e7b1a42"):
        assert part in first
    with pytest.raises(ValueError, match="unknown view 'bogus'"):
        render_text(results, meta, views=("bogus",))
    with pytest.raises(ValueError, match="unknown release"):
        render_text(results, dict(meta, release="zfs-9.9"), views=("summary",))
    with pytest.raises(ValueError, match="platform"):
        os_iostat_x(results, "aix")


def test_single_disk_vdev_and_no_cache(results):
    r = copy.deepcopy(results)
    r["pool"]["vdevs"] = [{"name": "sda", "type": "disk", "leaves": [0], "alloc_bytes": 1 << 40,
                           "size_bytes": 4 << 40}]
    r["pool"]["cache"] = []
    block = zpool_iostat(r, "zfs-2.2", samples=[0]).splitlines()
    assert [line.split()[0] for line in block[3:5]] == ["tank", "sda"]
    assert block[4].split()[1:3] == ["1T", "3T"]  # a top-level disk has capacity
    assert "cache" not in zpool_status_config(r, "zfs-2.2")


def test_summary_text_units(results, meta):
    text = summary_text(results, meta)
    assert "users: (random-read)" in text
    assert "p99.9=" in text and "M/s" in text


def test_short_last_sample_is_scaled_by_its_own_span(results):
    r = copy.deepcopy(results)
    # Pretend the run stopped at 25 s: the third sample covers 5 s, not 10 s.
    r["series"]["t_ns"][2] = 25_000_000_000
    from ziosim.report.iostat import sample_span_ns

    assert [sample_span_ns(r, k) for k in range(3)] == [10**10, 10**10, 5 * 10**9]
    line = zpool_iostat(r, "zfs-2.2", samples=[2]).splitlines()[5].split()
    ops = r["series"]["leaves"][0]["read_ops"][2]
    assert int(line[3]) == ops * 1_000_000_000 // (5 * 10**9)


def test_a_short_last_interval_is_not_printed(results, meta):
    # zpool iostat N sleeps a whole interval before each report and is stopped, not flushed:
    # it never prints a block 5 s after the last one, and iostat -x N neither (QA pass 8).
    r = copy.deepcopy(results)
    r["series"]["t_ns"][2] = 25_000_000_000
    text = render_text(r, meta, views=("iostat", "iostat-l", "iostat-q", "iostat-x"))
    full = render_text(results, meta, views=("iostat", "iostat-l", "iostat-q", "iostat-x"))
    assert text.count("capacity") == 2 * 3 and full.count("capacity") == 3 * 3
    assert text.count("Device ") == 2 and full.count("Device ") == 3
    # A run whose only sample is short has no interval to print.
    r["series"]["t_ns"] = [5_000_000_000]
    text = render_text(r, meta, views=("iostat",))
    assert "note: the run ended before the first 10s report interval; no `iostat` samples" in text


def test_run_shorter_than_one_interval(results, meta):
    r = copy.deepcopy(results)
    r["series"]["t_ns"] = []
    for s in r["series"]["leaves"]:
        for key, value in s.items():
            if isinstance(value, list):
                s[key] = []
    text = render_text(r, meta, views=("iostat", "iostat-x", "summary"))
    assert "note: the run ended before the first 10s report interval; no `iostat` samples" \
        in text
    assert "summary:" in text


def test_illumos_iostat_xn_fields_stay_apart_when_a_value_outgrows_its_column():
    from ziosim.report.iostat import DiskSample, _illumos_block

    d = DiskSample(name="c0t0d0", r_s=1.0, w_s=250.0, rkb_s=4.0, wkb_s=123456.7, r_await_ms=8.0,
                   w_await_ms=2.0, queue_len=3.0, util_pct=99.0)
    row = _illumos_block([d])[-1]
    assert row.split() == ["1.0", "250.0", "4.0", "123456.7", "0.0", "3.0", "0.0", "2.0", "0", "99", "c0t0d0"]
    small = _illumos_block([DiskSample("c0t1d0", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.5, 7.0)])[-1]
    assert small == "    1.0    2.0    3.0    4.0  0.0  0.5    0.0    5.7   0   7 c0t1d0"  # the header's columns


def test_linux_iostat_x_fields_stay_apart_when_a_value_outgrows_its_column():
    from ziosim.report.iostat import DiskSample, _linux_block

    d = DiskSample(name="sda", r_s=0.0, w_s=1310.0, rkb_s=0.0, wkb_s=1341440.0, r_await_ms=0.0,
                   w_await_ms=8.99, queue_len=29.76, util_pct=99.35)
    head, row = _linux_block([d])
    fields = row.split()
    assert fields[:5] == ["sda", "0.00", "1310.00", "0.00", "1341440.00"] and len(fields) == len(head.split())
    # Values that fit keep the header's columns.
    small = _linux_block([DiskSample("sdb", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.5, 7.0)])[-1]
    assert len(small) == len(head) and small.split()[1:5] == ["1.00", "2.00", "3.00", "4.00"]


# ----------------------------------------------------------------------------- logs and cache
# results_slog.json: the raidz2 pool plus a log mirror (mirror-1: nvd1 nvd2) and a lone log
# disk (nvd3) that take the ZIL's writes, and the L2ARC device nvd0 (make_results.py).


@pytest.fixture(scope="module")
def slog():
    return json.loads((FIXTURES / "results_slog.json").read_text())


@pytest.fixture(scope="module")
def slog_meta():
    return json.loads((FIXTURES / "meta_slog.json").read_text())


SLOG_SNAPSHOT_CASES = [
    ("solaris-2009", "status"), ("solaris-2009", "iostat"),
    ("illumos-2012", "status"), ("illumos-2012", "iostat"),
    ("zfs-0.7", "status"), ("zfs-0.7", "iostat-l"),
    ("zfs-0.8", "status"), ("zfs-0.8", "iostat-q"),
    ("zfs-2.2", "status"), ("zfs-2.2", "iostat"),
    ("zfs-2.3", "status-json"),
]


@pytest.mark.parametrize(("release", "view"), SLOG_SNAPSHOT_CASES)
def test_slog_view_snapshot(slog, slog_meta, release, view):
    check_snapshot(f"slog__{release}__{view}", render_text(slog, dict(slog_meta, release=release), views=(view,)))


def test_slog_status_during_a_scan_snapshot(slog, slog_meta):
    """A run with actions prints the core's snapshot trees, which hold the data vdevs only;
    the logs and cache sections follow each of them."""
    r = copy.deepcopy(slog)
    snaps = json.loads((FIXTURES / "status_snapshots.json").read_text())
    r["status"] = {"epoch_s": snaps["epoch_s"], "snapshots": [snaps["resilver"]]}
    for release in ("solaris-2009", "zfs-0.6.5", "zfs-2.2"):
        check_snapshot(f"slog__{release}__status-scan", render_text(r, dict(slog_meta, release=release),
                                                                     views=("status",)))
    check_snapshot("slog__zfs-2.3__status-json-scan", render_text(r, dict(slog_meta, release="zfs-2.3"),
                                                                   views=("status-json",)))


def test_slog_verbose_histograms_snapshot(slog):
    check_snapshot("slog__zfs-2.2__iostat-wv", zpool_iostat_w(slog, "zfs-2.2", verbose=True))


def _block(results, release, flags=()):
    return zpool_iostat(results, release, flags=flags, samples=[1]).splitlines()


def test_logs_section_per_era(slog):
    """print_vdev_stats: a "logs" label from illumos 952 (2011) on, inline before that."""
    names = lambda block: [ln.split()[0] for ln in block[3:] if ln and not ln.startswith("-")]  # noqa: E731
    legacy_label = "logs            -      -      -      -      -      -"
    assert names(_block(slog, "solaris-2009")) == [
        "tank", "raidz2", "sda", "sdb", "sdc", "sdd", "sde", "sdf", "mirror", "nvd1", "nvd2", "nvd3", "cache", "nvd0"]
    for release in ("freebsd-9", "illumos-2012", "illumos-2014", "zfs-0.6.5"):
        block = _block(slog, release)
        assert names(block)[8:] == ["logs", "mirror", "nvd1", "nvd2", "nvd3", "cache", "nvd0"], release
        assert block[11] == legacy_label, release
    block = _block(slog, "zfs-2.2", ("-l",))
    assert names(block)[8:] == ["logs", "mirror-1", "nvd1", "nvd2", "nvd3", "cache", "nvd0"]
    # print_iostat_dashes(cb, 0, "logs"): a "-" under every column of every group shown
    assert block[11] == "logs".ljust(10) + "      -" * (6 + 11)


def test_log_vdev_rows_and_the_pool_row(slog):
    """A log vdev has its own capacity (alloc: what its log blocks hold, in this
    fixture 190M and 40M at the end; free: its smallest disk less that); its disks print
    "-". The pool row counts the log vdevs' I/O (the root sums every top-level vdev) but
    not the L2ARC device's."""
    block = _block(slog, "zfs-2.2")
    rows = {ln.split()[0]: ln.split()[1:] for ln in block[3:-1]}
    assert rows["mirror-1"][:2] == ["190M", "372G"] and rows["nvd3"][:2] == ["40M", "373G"]
    assert rows["nvd1"][:2] == ["-", "-"]
    series = slog["series"]["leaves"]
    logs = [i for v in slog["pool"]["log"] for i in v["leaves"]]
    data = slog["pool"]["vdevs"][0]["leaves"]
    writes = sum(series[i]["write_ops"][1] for i in data + logs) // 10
    assert logs == [7, 8, 9] and writes > sum(series[i]["write_ops"][1] for i in data) // 10
    assert rows["tank"][3] == str(writes)
    assert [r.name for r in pool_rows(slog, "zfs-2.2") if r.section == "logs"] == ["mirror-1", "nvd1", "nvd2", "nvd3"]


def test_histograms_open_each_class_with_a_blank_line(slog):
    """In -w/-r, print_vdev_stats prints only "\\n" where the label would go (0.7+)."""
    lines = zpool_iostat_w(slog, "zfs-0.7", verbose=True).splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.startswith(("mirror ", "nvd0 "))]
    assert [lines[i - 2:i] for i in heads] == [["", ""], ["", ""]]


def test_os_iostat_lists_the_log_and_cache_disks(slog):
    names = [ln.split()[0] for ln in os_iostat_x(slog, "linux", samples=[0]).splitlines()[1:] if ln]
    assert names == ["sda", "sdb", "sdc", "sdd", "sde", "sdf", "nvd0", "nvd1", "nvd2", "nvd3"]


@pytest.mark.needs_core
def test_capacity_columns_follow_the_run():
    """alloc of each interval is the vdev's vs_alloc then: a SLOG holds the log blocks of
    the txgs not yet synced and deferred while fsyncs run, and nothing 20 s after they
    stop; the data disk holds the layout plus the rewriter's blocks in flight."""
    from ziosim import runner, scenario
    from ziosim.report.nicenum import zfs_nicenum

    text = ('[scenario]\nname = "t"\nstop = "60s"\nreport_interval = "10s"\n[zfs]\nrelease = "zfs-2.2"\n'
            '[pool]\nrecordsize = "16K"\nallocated = "2G"\n'
            'vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]\nlog = [{ device = "intel-s3700" }]\n'
            '[[workload]]\nname = "f"\nkind = "fsync-write"\nsize = "16K"\nthreads = 4\narc_hit = 1.0\n'
            'stop = "30s"\nregion = { offset = "0", length = "256M" }\n')
    res = runner.run(scenario.loads(text))
    tops = res["series"]["tops"]
    data, log = tops[0]["alloc_bytes"], tops[1]["alloc_bytes"]
    assert len(log) == 6 and all(b > 0 for b in log[:3]) and log[-1] == 0, log
    assert max(log) <= res["zil"]["log_space_bytes_max"]
    assert res["pool"]["log"][0]["alloc_bytes"] == 0
    layout = res["pool"]["layout_alloc_bytes"]
    assert max(data[:3]) > layout and data[-1] == res["pool"]["alloc_bytes"], (data, layout)
    lines = zpool_iostat(res, "zfs-2.2", verbose=True, samples=[1]).splitlines()
    row = next(ln.split() for ln in lines if ln.split() and ln.split()[0] == "sdb")
    assert row[1] == zfs_nicenum(log[1]) and row[1] != "0", row


@pytest.mark.needs_core
def test_before_0_7_a_raidz_row_is_its_own_logical_io():
    """illumos-2014 (pre-0.7 vdev_get_stats): the raidz2 row counts one read per block, the
    disks their column reads; from 0.7 the row adds up the disks."""
    from ziosim import runner, scenario

    text = ('[scenario]\nname = "t"\nstop = "20s"\nreport_interval = "10s"\n[zfs]\nrelease = "{rel}"\n'
            '[pool]\nallocated = "20G"\nvdevs = [{{ type = "raidz2", disks = 6, device = "hdd-7200-sata-2014" }}]\n'
            '[[workload]]\nname = "u"\nkind = "random-read"\nsize = "128K"\nthreads = 4\n')
    for rel, logical in (("illumos-2014", True), ("zfs-0.7", False)):
        res = runner.run(scenario.loads(text.format(rel=rel)))
        lines = [ln for ln in zpool_iostat(res, rel, samples=[1]).splitlines() if ln.split()]
        row = next(ln for ln in lines if ln.split()[0] in ("raidz2", "raidz2-0"))
        disks = [ln for ln in lines if ln.split()[0].startswith("sd")]
        reads, disk_reads = int(row.split()[3]), sum(int(ln.split()[3]) for ln in disks)
        pool = next(ln for ln in lines if ln.split()[0] == "tank")
        assert int(pool.split()[3]) == reads
        if logical:
            # 128K records on 6-wide raidz2: four data columns a block, each its own command.
            assert reads * 3 < disk_reads, (reads, disk_reads)
            assert reads == res["series"]["tops"][0]["read_ops"][1] * 10**9 // res["series"]["interval_ns"]
        else:
            assert 0 <= reads - disk_reads < len(disks)  # each disk's rate is floored on its own


@pytest.mark.needs_core
def test_a_replace_shows_its_replacing_vdev_and_counts_the_new_disk():
    """zpool iostat -v prints the tree of each interval: during a replace the old and the new
    disk sit under replacing-N, and the resilver's writes to the new disk count in the
    vdev's and the pool's rows (they were dropped: the rows summed the configured disks)."""
    from ziosim import runner, scenario

    text = ('[scenario]\nname = "t"\nstop = "40s"\nreport_interval = "20s"\n[zfs]\nrelease = "{rel}"\n'
            '[pool]\nallocated = "60G"\nvdevs = [{{ type = "raidz2", disks = 6, device = "hdd-7200-sata-2014" }}]\n'
            '[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdb"\n'
            '[[action]]\nat = "2s"\ndo = "replace"\nold = "sdb"\nnew = "sdg"\n')
    for rel, name in (("zfs-2.2", "replacing-1"), ("zfs-2.1", "replacing")):
        res = runner.run(scenario.loads(text.format(rel=rel)))
        lines = [ln for ln in zpool_iostat(res, rel, samples=[1]).splitlines() if ln.split()]
        names = [ln.split()[0] for ln in lines]
        i = names.index(name)
        assert names[i + 1:i + 3] == ["sdb", "sdg"], names
        assert lines[i].startswith(" " * 4 + name) and lines[i + 2].startswith(" " * 6 + "sdg")
        writes = lambda ln: ln.split()[4]  # noqa: E731
        assert writes(lines[i + 2]) != "0"
        top = next(ln for ln in lines if ln.split()[0] in ("raidz2", "raidz2-0"))
        pool = next(ln for ln in lines if ln.split()[0] == "tank")
        assert writes(top) == writes(pool) != "0"


# ----------------------------------------------------------------------------- scans in the summary

SCRUB = {"func": "scrub", "state": "finished", "engine": "sorted", "start_ns": 98_600_000_000,
         "end_ns": 410_600_000_000, "duration_ns": 312_000_000_000, "txgs": 60, "min_txg": 0, "max_txg": 61,
         "to_examine_bytes": 20 << 30, "examined_bytes": 20 << 30, "issued_bytes": 20 << 30, "skipped_bytes": 0,
         "processed_bytes": 0, "examined_bytes_per_s": (20 << 30) / 312.0, "issued_bytes_per_s": (20 << 30) / 312.0,
         "processed_bytes_per_s": 0.0, "sort_mem_peak_bytes": 1 << 20, "sort_mem_hard_bytes": 1 << 28,
         "issue_phases": 2, "meta_reads": 10, "prefetch_reads": 0, "prefetch_hits": 0,
         "walk_ns": 3_000_000_000, "walk_examined_bytes_per_s": (20 << 30) / 3.0,
         "after_walk_issued_bytes_per_s": (18 << 30) / 309.0}
RESILVER = dict(SCRUB, func="resilver", start_ns=2_400_000_000_000, end_ns=2_728_000_000_000,
                duration_ns=328_000_000_000, skipped_bytes=10 << 30, processed_bytes=10 << 30,
                processed_bytes_per_s=(10 << 30) / 328.0, issue_phases=1, issued_bytes=10 << 30,
                issued_bytes_per_s=(10 << 30) / 328.0,
                leaf_read_bytes=50 << 30, leaf_read_bytes_per_s=(50 << 30) / 328.0)
REBUILD = {"vdev": "mirror-0", "state": "complete", "start_ns": 20_000_000_000, "end_ns": 98_600_000_000,
           "duration_ns": 78_600_000_000, "estimate_bytes": 10 << 30, "scanned_bytes": 10 << 30,
           "issued_bytes": 10 << 30, "rebuilt_bytes": 10 << 30, "scanned_bytes_per_s": (10 << 30) / 78.6,
           "rebuilt_bytes_per_s": (10 << 30) / 78.6, "chunks": 10240, "errors": 0,
           "metaslab_waits": 116, "metaslab_wait_ns": 12_000_000_000}


def _with_scans(results):
    r = copy.deepcopy(results)
    latest = {k: v for k, v in RESILVER.items() if not k.startswith("leaf_read")}
    r.update(scan=RESILVER, scans=[SCRUB, latest], rebuilds=[REBUILD])
    return r


def test_summary_json_keeps_every_scan_and_rebuild(results, meta):
    """summary.json carries every scan (`scans`, each built as `scan` is) and every
    sequential rebuild (`rebuilds`), not only the latest scan."""
    from ziosim.report.summary import build_summary, summary_json

    doc = json.loads(summary_json(_with_scans(results), meta))
    assert [(s["func"], s["start_ns"]) for s in doc["scans"]] == [("scrub", 98_600_000_000),
                                                                  ("resilver", 2_400_000_000_000)]
    assert doc["scans"][0]["examined_bytes_per_s"] == round((20 << 30) / 312.0, 3)
    assert "min_txg" not in doc["scans"][0]  # as `scan`: same keys
    assert (doc["scans"][0]["meta_reads"], doc["scans"][0]["prefetch_reads"]) == (10, 0)
    assert (doc["scans"][0]["walk_ns"], doc["scans"][0]["after_walk_issued_bytes_per_s"]) == (
        3_000_000_000, round((18 << 30) / 309.0, 3))
    assert {k: v for k, v in doc["scan"].items() if not k.startswith("leaf_read")} == doc["scans"][-1]
    assert doc["scan"]["leaf_read_bytes"] == 50 << 30  # the results' latest scan only
    assert doc["rebuilds"] == [{"vdev": "mirror-0", "state": "complete", "start_ns": 20_000_000_000,
                                "end_ns": 98_600_000_000, "duration_ns": 78_600_000_000,
                                "estimate_bytes": 10 << 30, "scanned_bytes": 10 << 30, "issued_bytes": 10 << 30,
                                "rebuilt_bytes": 10 << 30, "scanned_bytes_per_s": 136608374.555,
                                "rebuilt_bytes_per_s": 136608374.555, "chunks": 10240, "errors": 0,
                                "metaslab_waits": 116, "metaslab_wait_ns": 12_000_000_000}]
    # No scan: null and two empty lists, so a reader can always iterate.
    none = build_summary(results, meta)
    assert (none["scan"], none["scans"], none["rebuilds"]) == (None, [], [])
    assert summary_json(_with_scans(results), meta) == summary_json(_with_scans(results), dict(meta))


def test_summary_text_has_a_line_per_scan_in_start_order(results, meta):
    lines = summary_text(_with_scans(results), meta).splitlines()
    scans = [ln for ln in lines if ln.startswith("scan: ")]
    # 10 GiB in 78.6 s = 136.6e6 B/s = 130.3 MiB/s -> "130M/s"; 20 GiB in 312 s = 65.6 MiB/s;
    # 10 GiB in 328 s = 31.2 MiB/s. Sorted scans: scanned (walked) and issued (read) at the
    # issue rate, however they ended (QA: a canceled one gave its walk as "examined").
    assert scans == [
        "scan: rebuild mirror-0 finished in 1m18s (from 20.0s): 10G rebuilt at 130M/s, 0 errors",
        "scan: scrub finished in 5m12s (from 1m38s): 20G scanned, 20G issued at 65.6M/s, 0B repaired",
        "scan: resilver finished in 5m28s (from 40m00s): 20G scanned, 10G issued at 31.2M/s, 10G resilvered",
    ]
    # Legacy scans read as they walk: one figure, examined.
    legacy = _with_scans(results)
    legacy["scans"] = [dict(sc, engine="legacy") for sc in legacy["scans"]]
    assert [ln for ln in summary_text(legacy, meta).splitlines() if ln.startswith("scan: ")][1:] == [
        "scan: scrub finished in 5m12s (from 1m38s): 20G examined at 65.6M/s, 0B repaired",
        "scan: resilver finished in 5m28s (from 40m00s): 20G examined, 10G resilvered at 31.2M/s",
    ]
    canceled = _with_scans(results)
    canceled["scans"][0] = dict(SCRUB, state="canceled", issued_bytes=5 << 30, issued_bytes_per_s=(5 << 30) / 312.0)
    assert [ln for ln in summary_text(canceled, meta).splitlines() if ln.startswith("scan: ")][1] == (
        "scan: scrub canceled after 5m12s (from 1m38s): 20G scanned, 5G issued at 16.4M/s, 0B repaired")
    # After the per-class lines, before the redundancy lines (which follow from the scans).
    assert lines.index(scans[0]) > max(i for i, ln in enumerate(lines) if ln.startswith("scrub: ops="))
    r = _with_scans(results)
    r["scans"][-1] = dict(r["scans"][-1], state="scanning")
    r["rebuilds"] = []
    running = [ln for ln in summary_text(r, meta).splitlines() if ln.startswith("scan: ")]
    assert running[-1].startswith("scan: resilver still running after 5m28s (from 40m00s): ")
    # A sorted scan under way: scanned (walked) and issued (read), as zpool status says,
    # not the walk as "examined" (QA pass 2: 559G "examined at 3.11G/s" 7 % into a scrub).
    r["scans"][-1] = dict(r["scans"][-1], engine="sorted", examined_bytes=100 << 30, issued_bytes=5 << 30,
                          issued_bytes_per_s=50 << 20, processed_bytes=1 << 30)
    running = [ln for ln in summary_text(r, meta).splitlines() if ln.startswith("scan: ")]
    assert running[-1] == "scan: resilver still running after 5m28s (from 40m00s): 100G scanned, 5G issued at 50M/s, 1G resilvered"
    assert not [ln for ln in summary_text(results, meta).splitlines() if ln.startswith("scan: ")]


@pytest.mark.needs_core
def test_rebuild_scenario_summary_holds_what_its_header_promises(tmp_path):
    """scenarios/rebuild-mirror-zfs-2.1.toml tells its reader to compare the rebuild and the
    healing resilver in summary.json's `rebuilds` and `scans` and in the summary's `scan:`
    lines; docs/output.md shows those lines ("Scans and rebuilds")."""
    import re

    from conftest import ROOT, SCENARIOS, check_doc_blocks
    from ziosim import runner, scenario
    from ziosim.report import write_outputs

    path = SCENARIOS / "rebuild-mirror-zfs-2.1.toml"
    header = "".join(ln for ln in path.read_text().splitlines(keepends=True) if ln.startswith("#"))
    promised = re.search(r"summary\.json \(([^)]*)\)", " ".join(header.split())).group(1)
    keys = re.findall(r"`(\w+)`", promised)
    assert keys == ["rebuilds", "scans"]

    text = path.read_text()
    assert text.count('allocated = "60G"') == 1
    # The doc's command: --set pool.allocated=20G.
    sc = scenario.loads(text.replace('allocated = "60G"', 'allocated = "20G"'), path=str(path))
    res = runner.run(sc)
    meta = runner.meta(sc)
    write_outputs(tmp_path / "out", res, meta, plots=False)
    doc = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert all(doc[k] for k in keys)
    (rb,) = doc["rebuilds"]
    assert (rb["vdev"], rb["state"]) == ("mirror-0", "complete")
    assert [(s["func"], s["state"]) for s in doc["scans"]] == [("scrub", "finished"), ("resilver", "finished")]
    heal = doc["scans"][-1]
    assert rb["duration_ns"] < heal["duration_ns"]  # the comparison the header asks for: redundancy back sooner
    assert doc["scans"][0]["start_ns"] >= rb["end_ns"]  # the scrub the rebuild starts
    shown = [ln for ln in summary_text(res, meta).splitlines() if ln.startswith("scan: ")]
    assert [ln.split()[1] for ln in shown] == ["rebuild", "scrub", "resilver"]
    check_doc_blocks(ROOT / "docs" / "output.md", "scans-example", {
        "rebuild": ("$ ziosim run scenarios/rebuild-mirror-zfs-2.1.toml --set pool.allocated=20G --views summary "
                    "| grep '^scan:'\n" + "\n".join(shown) + "\n")}, UPDATE)


@pytest.mark.needs_core
def test_summary_json_leaves_count_the_commands_zpool_iostat_counts():
    """A leaf's `ops` counts zios, every member of an aggregate; `commands` the device
    commands `zpool iostat` shows, the series' read_ops + write_ops (QA pass 8)."""
    from ziosim import runner, scenario
    from ziosim.report.summary import build_summary

    text = ('[scenario]\nname = "t"\nstop = "20s"\nreport_interval = "10s"\n[zfs]\nrelease = "zfs-2.2"\n'
            '[pool]\nallocated = "20G"\nvdevs = [{ type = "raidz2", disks = 4, device = "hdd-7200-sata-2014" }]\n'
            '[[workload]]\nname = "w"\nkind = "random-write"\nsize = "8K"\nthreads = 4\n')
    sc = scenario.loads(text)
    res = runner.run(sc)
    leaves = build_summary(res, runner.meta(sc))["leaves"]
    for i, leaf in enumerate(res["leaves"]):
        s, got = res["series"]["leaves"][i], leaves[leaf["name"]]
        assert got["commands"] == sum(s["read_ops"]) + sum(s["write_ops"])
        assert got["commands"] == sum(c["commands"] for c in got["classes"].values())
    assert any(v["commands"] < v["ops"] for v in leaves.values())  # the queue aggregated


def test_freebsd_9_iostat_x_has_the_columns_before_12(results, meta):
    # FreeBSD split svc_t into ms/r, ms/w, ms/o and ms/t in 12; freebsd-9 prints the old row.
    old = render_text(results, dict(meta, release="freebsd-9", platform="freebsd"), views=("iostat-x",))
    assert "device     r/s   w/s    kr/s    kw/s qlen svc_t  %b  " in old.splitlines()
    assert "ms/r" not in old
    new = render_text(results, dict(meta, release="zfs-2.2", platform="freebsd"), views=("iostat-x",))
    assert "ms/r" in new and "svc_t" not in new


def test_a_keyed_aggregation_prints_its_key_right_above_the_header(results, meta):
    # dt_print_aggs prints each key record before the aggregation: a string through
    # dt_print_bytes at width -50, " " + " " + "%-50s", with no newline of its own; the
    # quantize header's leading "\n" ends the key's line (dt_consume.c, illumos).
    from ziosim.report.quantize import HEADER, keyed_quantize

    lines = render_text(results, meta, views=("latency",)).splitlines()
    i = lines.index('$ dtrace: @["users"] = quantize(latency_ns)')
    assert lines[i + 1:i + 4] == ["", "  users" + " " * 45, HEADER]
    two = keyed_quantize(("app", "read"), [0, 3]).splitlines()
    assert two[:2] == ["  app" + " " * 47 + "  read" + " " * 46, HEADER]


def test_a_workload_that_completed_nothing_prints_no_quantize(results, meta):
    # DTrace prints nothing for an aggregation key that never fired; the -1/0/1 rows of an
    # empty quantize() belong to a key emptied by clear() (QA pass 2).
    import copy

    r = copy.deepcopy(results)
    w = r["workloads"][0]
    w["latency_log2"] = [0] * len(w["latency_log2"])
    w["by_scan_phase"] = {}
    text = render_text(r, meta, views=("latency",))
    assert f'@["{w["name"]}"]' not in text and "      -1 |" not in text
    assert f'@["{w["name"]}"]' in render_text(results, meta, views=("latency",))

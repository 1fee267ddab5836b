"""``ziosim import`` of operating-system ``iostat -x``: the three flavours, matching the
devices to the pool, the straggler rule, the workload, and a round trip through ziosim's
own ``iostat -x`` output (docs/import.md, "iostat -x: per-disk load and stragglers")."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from ziosim.errors import ScenarioError
from ziosim.importers import iostat_x, split_sections
from ziosim.importers import scenario as isc

from conftest import ROOT, check_doc_blocks

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REL = "tests/python/fixtures/import"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
KIB = 1024


def parse_text(text: str, name: str = "iostat.txt") -> iostat_x.IostatX:
    (sec,) = [s for s in split_sections(name, text) if s.kind == "iostatx"]
    return iostat_x.parse(sec)


def parse_fixture(name: str) -> iostat_x.IostatX:
    return parse_text((FIX / name).read_text(), name)


def disk(x: iostat_x.IostatX, name: str) -> iostat_x.DiskStat:
    return next(d for d in x.disks if d.name == name)


# ----------------------------------------------------------------------------- the flavours


def test_linux_sysstat_12_last_report():
    x = parse_fixture("zfs-2.1-iostat-x-straggler.txt")
    assert (x.flavour, x.reports, x.used, x.header_line, x.service_column) == ("linux", 2, 2, 42, "r_await")
    assert [d.name for d in x.disks] == ["sda", "sdb", "sdc", "sdd", "sde", "sdf", "sdg", "nvme0n1", "dm-0"]
    c = disk(x, "sdc")
    assert (c.read_ops_per_s, c.write_ops_per_s, c.read_ms, c.write_ms, c.busy_percent, c.queue) == (
        48.1, 2.9, 141.3, 6.82, 99.6, 6.82)
    assert c.read_bytes_per_s == pytest.approx(6156.8 * KIB) and c.write_bytes_per_s == pytest.approx(66.4 * KIB)
    assert (c.all_ms, c.service_ms, c.service_ops_per_s, c.line) == (None, 141.3, 48.1, 45)


def test_linux_old_columns_read_time_preferred_to_await():
    x = parse_fixture("iostat-x-sysstat-10.txt")
    assert (x.flavour, x.used, x.service_column) == ("linux", 2, "r_await")
    b = disk(x, "sdb")
    assert (b.read_ms, b.write_ms, b.all_ms, b.busy_percent, b.queue) == (8.31, 3.92, 8.22, 71.2, 0.81)
    assert b.read_bytes_per_s == pytest.approx(12288.6 * KIB)
    g = disk(x, "sdg")  # only writes: its read time says nothing, and its reads are below the minimum
    assert (g.service_ms, g.service_ops_per_s) == (0.0, 0.0)


def test_freebsd_both_column_sets():
    new = parse_fixture("freebsd-13-iostat-x-busy.txt")
    assert (new.flavour, new.service_column, new.used) == ("freebsd", "ms/r", 2)
    a3 = disk(new, "ada3")
    assert (a3.read_ops_per_s, a3.read_ms, a3.write_ms, a3.all_ms, a3.queue, a3.busy_percent) == (
        74, 13, 9, 13, 4, 100)
    old = parse_fixture("iostat-x-freebsd-9.txt")
    assert (old.flavour, old.service_column) == ("freebsd", "svc_t")
    a5 = disk(old, "ada5")
    assert (a5.read_ms, a5.all_ms, a5.service_ms, a5.service_ops_per_s, a5.busy_percent) == (
        None, 8.9, 8.9, pytest.approx(94.2), 63)
    assert a5.read_bytes_per_s == pytest.approx(11482.4 * KIB)


def test_illumos_xn_and_x():
    xn = parse_fixture("iostat-xn-illumos.txt")  # with -T d stamps between the reports
    assert (xn.flavour, xn.service_column, xn.used, xn.reports) == ("illumos", "asvc_t", 2, 2)
    d6 = disk(xn, "c0t6d0")
    assert (d6.write_ops_per_s, d6.all_ms, d6.queue, d6.busy_percent) == (122.4, 25.6, 3.1, 91)
    assert d6.write_bytes_per_s == pytest.approx(15667.2 * KIB)
    x = parse_fixture("iostat-x-illumos-sd.txt")
    assert (x.flavour, x.service_column, [d.name for d in x.disks][:2]) == ("illumos-x", "svc_t", ["sd0", "sd1"])


LINUX_M = """\
Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util
sda               0,00     0,00   10,00    2,00     1,25     0,50   298,67     0,10    8,33    9,00    5,00   4,00   4,80
"""

LINUX_SECTORS = """\
Device:         rrqm/s   wrqm/s     r/s     w/s   rsec/s   wsec/s avgrq-sz avgqu-sz   await  svctm  %util
sda               0.00     0.00   10.00    2.00  2560.00  1024.00   298.67     0.10    8.33   4.00   4.80
"""


def test_linux_units_and_decimal_comma():
    m = disk(parse_text(LINUX_M), "sda")
    assert (m.read_bytes_per_s, m.write_bytes_per_s) == (1.25 * KIB * KIB, 0.5 * KIB * KIB)
    assert (m.read_ms, m.all_ms) == (9.0, 8.33)
    s = parse_text(LINUX_SECTORS)
    assert s.service_column == "await" and s.since_boot  # no r_await before sysstat 9.1.3; one report
    d = disk(s, "sda")
    assert (d.read_bytes_per_s, d.write_bytes_per_s) == (2560 * 512, 1024 * 512)
    assert (d.service_ms, d.service_ops_per_s) == (8.33, 12.0)


def test_columns_are_matched_by_name_not_position():
    plain = parse_text("device r/s w/s kr/s kw/s ms/r ms/w ms/o ms/t qlen %b\nada0 50 5 6400.0 40.0 7 3 0 6 1 40\n")
    moved = parse_text("device %b qlen kw/s ms/w w/s r/s kr/s ms/t ms/o ms/r extra\n"
                       "ada0 40 1 40.0 3 5 50 6400.0 6 0 7 99\n")
    assert [dataclass_values(d) for d in plain.disks] == [dataclass_values(d) for d in moved.disks]


def dataclass_values(d: iostat_x.DiskStat) -> tuple:
    return (d.name, d.read_ops_per_s, d.write_ops_per_s, d.read_bytes_per_s, d.write_bytes_per_s, d.read_ms,
            d.write_ms, d.all_ms, d.busy_percent, d.queue, d.service_ms)


def test_a_report_cut_short_falls_back_to_the_one_before():
    text = (FIX / "iostat-x-sysstat-10.txt").read_text().rstrip("\n").splitlines()
    cut_rows = "\n".join(text[:-2]) + "\n"  # the last report lacks sdf and sdg
    x = parse_text(cut_rows)
    assert (x.used, x.header_line) == (1, 7) and disk(x, "sdb").read_ops_per_s == 40.2
    cut_line = "\n".join(text[:-1] + [text[-1][:40]]) + "\n"  # the paste stops inside a row
    x = parse_text(cut_line)
    assert (x.used, x.reports) == (1, 1)


def test_stamps_banner_and_avg_cpu_are_read_past():
    text = ("$ iostat -xt 5 2\nLinux 6.1.0-13-amd64 (pve) \t11/02/2023 \t_x86_64_\t(16 CPU)\n\n"
            "11/02/2023 09:14:05 PM\navg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
            "           1.00    0.00    1.00    1.00    0.00   97.00\n\n"
            "Device            r/s     rkB/s r_await     w/s     wkB/s w_await  aqu-sz  %util\n"
            "sda              1.00      4.00    1.00    1.00      4.00    1.00    0.00   0.10\n\n"
            "2023-11-02T21:14:10+0100\n"
            "Device            r/s     rkB/s r_await     w/s     wkB/s w_await  aqu-sz  %util\n"
            "sda             20.00    640.00    4.50    1.00      4.00    1.00    0.10   9.00\n")
    x = parse_text(text)
    assert (x.used, disk(x, "sda").read_ms, x.first_line) == (2, 4.5, 2)


def test_sections_by_content_beside_zpool_output():
    text = (FIX / "zfs-2.1-iostat-x-straggler.txt").read_text()
    kinds = [(s.kind, s.first_line, s.command) for s in split_sections("f.txt", text)]
    assert kinds == [("status", 2, "$ zpool status tank"), ("iostatx", 23, "$ iostat -x 10 2")]
    bare = text.split("$ iostat -x 10 2\n")[1]  # no prompt: the banner starts the section
    assert [s.kind for s in split_sections("f.txt", bare)] == ["iostatx"]
    illumos = (FIX / "iostat-x-illumos-sd.txt").read_text().split("\n", 1)[1]  # "extended device statistics"
    assert [s.kind for s in split_sections("f.txt", illumos)] == ["iostatx"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Device r/s w/s rkB/s wkB/s %util\nsda 1 1 1 1 1\n",
     'iostat.txt:1: "Device r/s w/s rkB/s wkB/s %util" — expected an iostat -x column header with r/s, w/s, '
     "rkB/s (or rMB/s, rsec/s), wkB/s, r_await or await, and %util"),
    ("device r/s w/s kr/s kw/s qlen svc_t %b\nada0 1.0 x 1 1 0 1.0 1\n",
     'iostat.txt:2: "ada0 1.0 x 1 1 0 1.0 1" — expected a device row of 8 fields under the header of line 1 '
     "(a name and plain numbers; iostat without -h)"),
    ("extended device statistics\nada0 1.0 1.0 1 1 0 1.0 1\n",
     'iostat.txt:2: "ada0 1.0 1.0 1 1 0 1.0 1" — expected an iostat -x column header (Device r/s w/s …, '
     "device r/s w/s …, or r/s w/s … device) before the device rows"),
    ("device r/s w/s kr/s kw/s qlen svc_t %b\nada0 1 1 1 1 0 1 1\nada0 1 1 1 1 0 1 1\n",
     "iostat.txt:3: expected one row per device in a report (ada0 twice)"),
    ("device r/s w/s kr/s kw/s qlen svc_t %b\n",
     "iostat.txt:1: expected an iostat -x report: a column header and at least one device row"),
])
def test_errors_name_the_file_line_and_what_was_expected(text, expected):
    with pytest.raises(ScenarioError) as e:
        parse_text(text)
    assert e.value.line == expected and "\n" not in e.value.line


# ----------------------------------------------------------------------------- matching


@pytest.mark.parametrize(("leaf", "disk_name"), [
    ("sda1", "sda"), ("/dev/sdb1", "sdb"), ("nvme0n1p1", "nvme0n1"), ("xvdf2", "xvdf"), ("ada0p2", "ada0"),
    ("da3s1a", "da3"), ("ada1p3.eli", "ada1"), ("ada2.eli", "ada2"), ("c0t0d0s0", "c0t0d0"),
    ("c0t5000C500A1B2C3D4d0s0", "c0t5000C500A1B2C3D4d0"), ("/dev/dsk/c1t2d0s0", "c1t2d0"),
    ("sda", None), ("ata-WDC_WD80EFZX-68UW8N0_VK0A1B2C-part1", None), ("gptid/6a2b7d4e-1b2c", None),
    ("wwn-0x5000c500a1b2c3d4", None), ("c0t0d0", None),
])
def test_kernel_disk_of_a_partition_or_slice(leaf, disk_name):
    assert iostat_x.kernel_disk(leaf) == disk_name


def test_matching_never_guesses():
    x = parse_text("Device r/s w/s rkB/s wkB/s r_await %util\n" + "".join(
        f"{n} 1 1 1 1 1 1\n" for n in ("sda", "sdb", "sdb1", "nvme0n1", "sdz")))
    leaves = ["/dev/sda", "sdb1", "nvme0n1p1", "nvme0n1p2", "ata-ST4000_Z1", "sdc"]
    m = iostat_x.match_devices(leaves, x)
    assert {k: v.name for k, v in m.disks.items()} == {"/dev/sda": "sda", "sdb1": "sdb1"}  # exact beats the disk
    assert m.shared == (("nvme0n1", ("nvme0n1p1", "nvme0n1p2")),)
    assert m.not_in_pool == ("sdb", "sdz")
    assert m.no_row == ("nvme0n1p1", "nvme0n1p2", "ata-ST4000_Z1", "sdc")


# ----------------------------------------------------------------------------- the straggler rule


def stat(name: str, ms: float | None, ops: float = 50.0, busy: float | None = 40.0) -> iostat_x.DiskStat:
    return iostat_x.DiskStat(name, ops, 0.0, ops * 131072, 0.0, ms, None, None, busy, None, ms, ops, 1)


def flagged(*disks: iostat_x.DiskStat) -> list[tuple[str, bool, bool]]:
    return [(s.leaf, s.slow, s.busy) for s in iostat_x.stragglers([("g", [(d.name, d) for d in disks])])]


def test_the_one_slow_disk_of_the_spec():
    peers = [stat(f"d{i}", ms) for i, ms in enumerate((4.0, 5.0, 6.0, 8.0, 7.0))]
    assert flagged(*peers, stat("slow", 140.0)) == [("slow", True, False)]
    (s,) = iostat_x.stragglers([("raidz2-0", [(d.name, d) for d in (*peers, stat("slow", 140.0))])])
    assert (s.peers, s.peer_service_ms, s.group) == (5, 6.0, "raidz2-0")


def test_each_threshold_of_the_rule():
    peers = [stat("a", 5.0), stat("b", 6.0), stat("c", 7.0)]
    assert flagged(*peers, stat("x", 19.9)) == []  # > 3× the median, under 20 ms
    peers_slow = [stat("a", 10.0), stat("b", 10.0), stat("c", 10.0)]
    assert flagged(*peers_slow, stat("x", 30.0)) == []  # exactly 3×: not more
    assert flagged(*peers_slow, stat("x", 30.1)) == [("x", True, False)]
    assert flagged(*peers, stat("x", 400.0, ops=4.9)) == []  # one slow I/O on an idle disk
    idle_peers = [stat("a", 0.0, ops=0.0), stat("b", 0.0, ops=0.0)]
    assert flagged(*idle_peers, stat("x", 50.0)) == []  # no peer did enough I/O to compare with
    assert flagged(stat("a", 5.0, busy=45.0), stat("b", 5.0, busy=45.0), stat("x", 5.0, busy=90.0)) == [
        ("x", False, True)]
    assert flagged(stat("a", 5.0, busy=46.0), stat("b", 5.0, busy=46.0), stat("x", 5.0, busy=90.0)) == []
    assert flagged(stat("a", 5.0, busy=10.0), stat("x", 5.0, busy=89.9)) == []
    assert flagged(stat("alone", 900.0, busy=100.0)) == []  # no peer, no comparison


def test_the_rule_reads_the_constants_the_docs_give():
    assert (iostat_x.SLOW_FACTOR, iostat_x.SLOW_MS_MIN, iostat_x.OPS_MIN_PER_S, iostat_x.BUSY_PERCENT_MIN,
            iostat_x.BUSY_PEER_SHARE_MAX) == (3.0, 20.0, 5.0, 90.0, 0.5)
    doc = (ROOT / "docs" / "import.md").read_text()
    for text in ("more than 3 times", "at least 20 ms", "at least 5", "at least 90 %", "at most half"):
        assert text in doc, text


# ----------------------------------------------------------------------------- the scenario


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def build(names, presets, **opts) -> str:
    imp = isc.read_inputs([(f"{REL}/{n}", (FIX / n).read_text()) for n in names])
    return isc.build(imp, isc.Options(**opts), presets)


def header(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("#")]


@pytest.mark.needs_core
def test_header_names_matches_misses_and_the_straggler(presets):
    h = header(build(["zfs-2.1-iostat-x-straggler.txt"], presets))
    assert "#   matched to the pool's disks: sda, sdb, sdc, sdd, sde, sdf (same names); nvme0n1p1 → nvme0n1 " \
           "(the disk of nvme0n1p1)" in h
    assert "#   not the pool's disks, skipped: sdg, dm-0" in h
    (s,) = [ln for ln in h if "straggler (" in ln]
    assert s.startswith("#   straggler (slow and busy): sdc in raidz2-0: r_await 141.3 ms at 48.1 r/s, %util 99.6; "
                        "its 5 peers' median 5.8 ms, %util 38.2")
    assert any(ln.startswith("#   modelled: sdc is device sdc-slow, hdd-7200-sata-2014 with read recovery") for ln in h)


@pytest.mark.needs_core
@pytest.mark.parametrize(("names", "lines"), [
    (["zol-0.7-raidz2-replacing.txt", "iostat-x-sysstat-10.txt"],
     ["#   not the pool's disks, skipped: sda",
      "#   pool disks with no row (not in the report: a missing disk does no I/O, and iostat -z leaves idle ones "
      "out): 15227935785154093815", "#   stragglers: none ("]),
    (["freebsd-gptid-scrub.txt", "iostat-x-freebsd-9.txt"],
     ["#   matched to the pool's disks: none", "#   pool disks with no row (a label such as /dev/disk/by-id or "
      "gptid/… names no kernel disk", "#   stragglers: not looked for"]),
    (["illumos-2014-resilver.txt", "iostat-x-illumos-sd.txt"],
     ["#   pool disks with no row (iostat -x without -n prints sdN instance names: run iostat -xn): c0t0d0"]),
    (["illumos-2014-resilver.txt", "iostat-xn-illumos.txt"],
     ["#   matched to the pool's disks: c0t0d0, c0t1d0, c0t6d0, c0t3d0, c0t4d0, c0t5d0 (same names)",
      "#   c0t5d0 (raidz2-0): 60.9 r/s 7.61M/s, 1.0 w/s 12.8K/s, asvc_t 8.9 ms, %b 47.0",
      "#   stragglers: none ("]),
])
def test_header_of_each_flavour(names, lines, presets):
    h = header(build(names, presets))
    for want in lines:
        assert any(ln.startswith(want) for ln in h), want
    # the resilvering c0t6d0 (91 %b, writing) and the replaced disk are not compared with the others
    assert not any("straggler (" in ln for ln in h)


@pytest.mark.needs_core
def test_workload_from_iostat_x_of_mirrors(presets):
    from ziosim import scenario

    text = build(["freebsd-13-iostat-x-busy.txt"], presets, workload_from_iostat=True)
    w = tomllib.loads(text)["workload"][0]
    assert (w["kind"], w["rate"], w["size"]) == ("random-read", 362, "128K")  # 96+95+97+74 r/s; Σ kr/s ÷ Σ r/s
    assert any("the sum of the data disks' r/s in iostat -x" in ln for ln in header(text))
    scenario.loads(text, path="x.toml")


@pytest.mark.needs_core
def test_workload_from_iostat_x_refused_for_raidz_and_missing_rows(presets):
    with pytest.raises(ScenarioError, match=r"^--workload-from-iostat: .*:42: iostat -x shows each disk's reads, "
                       r"and a read of a block on raidz2-0 touches one to all"):
        build(["zfs-2.1-iostat-x-straggler.txt"], presets, workload_from_iostat=True)
    with pytest.raises(ScenarioError, match="no iostat -x row for the pool disks c1t1d0, c1t2d0, c1t3d0, so"):
        build(["solaris-2009-scrub.txt", "iostat-xn-illumos.txt"], presets, workload_from_iostat=True)


@pytest.mark.needs_core
@pytest.mark.parametrize("names", [["zfs-2.1-iostat-x-straggler.txt"], ["freebsd-13-iostat-x-busy.txt"],
                                   ["zol-0.7-raidz2-replacing.txt", "iostat-x-sysstat-10.txt"],
                                   ["freebsd-gptid-scrub.txt", "iostat-x-freebsd-9.txt"],
                                   ["illumos-2014-resilver.txt", "iostat-xn-illumos.txt"],
                                   ["illumos-2014-resilver.txt", "iostat-x-illumos-sd.txt"]], ids=lambda n: n[-1])
def test_every_iostat_fixture_makes_a_valid_scenario(names, presets):
    from ziosim import scenario

    text = build(names, presets)
    scenario.loads(text, path="x.toml")
    assert any(ln.startswith("# iostat -x (") for ln in header(text))


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


@pytest.mark.needs_core
def test_cli_one_stderr_line_per_straggler():
    r = _invoke(FIX / "freebsd-13-iostat-x-busy.txt")
    assert r.exit_code == 0, r.stderr
    straggler, summary = r.stderr.splitlines()
    assert straggler == (
        f"straggler (busy): ada3p3 in the pool's mirror disks: ms/r 13.0 ms at 74.0 r/s, %b 100.0; its 3 peers' "
        f"median 3.0 ms, %b 31.0 ({FIX}/freebsd-13-iostat-x-busy.txt line 33); modelled as device ada3p3-slow: "
        "every read recovers, mean 1.2 revolutions of 8.33 ms")
    assert summary.startswith("scenario on stdout — pool zroot")
    quiet = _invoke(FIX / "freebsd-13-iostat-x-busy.txt", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == r.stdout


@pytest.mark.needs_core
def test_cli_errors_exit_2_on_one_line():
    r = _invoke(FIX / "zfs-2.1-iostat-x-straggler.txt", "--workload-from-iostat")
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.startswith("error: --workload-from-iostat: ")
    r = _invoke(FIX / "iostat-xn-illumos.txt")
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {FIX}/iostat-xn-illumos.txt: no zpool status")


# ----------------------------------------------------------------------------- round trip


@pytest.fixture(scope="module")
def default_run():
    pytest.importorskip("ziosim._core")
    from ziosim import runner, scenario

    return runner.run(scenario.load(ROOT / "scenarios" / "default.toml", stop="30s"))


# per flavour: the decimals printed for (ops, KiB/s, ms, %busy)
DECIMALS = {"linux": (2, 2, 2, 2), "freebsd": (0, 1, 0, 0), "freebsd-old": (1, 1, 1, 0), "illumos": (1, 1, 1, 0)}


@pytest.mark.needs_core
@pytest.mark.parametrize("platform", ["linux", "freebsd", "freebsd-old", "illumos"])
def test_round_trip_ziosim_iostat_x_reads_back(platform, default_run):
    # freebsd-old: the `qlen svc_t %b` columns FreeBSD printed before 12 (freebsd-9's).
    from ziosim.report import iostat

    n = len(default_run["series"]["t_ns"])
    text = iostat.os_iostat_x(default_run, platform, samples=[n - 1, n - 1])  # two reports: the last is used
    x = parse_text(text)
    assert x.flavour == platform.removesuffix("-old") and x.used == 2
    if platform == "freebsd-old":
        assert x.service_column == "svc_t"
    truth = iostat._disk_samples(default_run, n - 1)
    assert [d.name for d in x.disks] == [t.name[:8] if platform.startswith("freebsd") else t.name for t in truth]
    ops_d, kib_d, ms_d, busy_d = DECIMALS[platform]

    def near(parsed, true, decimals):
        assert parsed == pytest.approx(true, abs=0.5 * 10 ** -decimals + 1e-9)

    for d, t in zip(x.disks, truth):
        near(d.read_ops_per_s, t.r_s, ops_d)
        near(d.write_ops_per_s, t.w_s, ops_d)
        near(d.read_bytes_per_s / KIB, t.rkb_s, kib_d)
        near(d.write_bytes_per_s / KIB, t.wkb_s, kib_d)
        near(d.busy_percent, t.util_pct, busy_d)
        if platform in ("illumos", "freebsd-old"):
            ops = t.r_s + t.w_s
            near(d.service_ms, (t.r_await_ms * t.r_s + t.w_await_ms * t.w_s) / ops if ops else 0.0, ms_d)
        else:
            near(d.read_ms, t.r_await_ms, ms_d)
            near(d.write_ms, t.w_await_ms, ms_d)


# ----------------------------------------------------------------------------- docs/import.md

DOC = ROOT / "docs" / "import.md"
DOC_INPUT = "zfs-2.1-iostat-x-straggler.txt"


@pytest.mark.needs_core
def test_doc_example_is_current(presets):
    text = build([DOC_INPUT], presets)
    iostat_header = []
    for ln in header(text):
        if ln.startswith("# iostat -x (") or (iostat_header and ln.startswith("#   ")):
            iostat_header.append(ln)
        elif iostat_header:
            break
    body = text.splitlines()
    tables = []  # sed's two ranges: each from its table's first line to the blank line after it
    for start in ("[devices.sdc-slow]", "[[pool.vdevs]]"):
        i = next(i for i, ln in enumerate(body) if ln.startswith(start))
        j = body.index("", i) if "" in body[i:] else len(body)
        tables += body[i:j + 1]
    r = _invoke(FIX / DOC_INPUT, "--out", os.devnull)
    stderr = r.stderr.replace(str(FIX), REL)
    expected = {
        "iostat-input": f"$ cat {REL}/{DOC_INPUT}\n" + (FIX / DOC_INPUT).read_text(),
        "iostat-header": f"$ ziosim import {REL}/{DOC_INPUT} | sed -n '/^# iostat -x/,/^#   modelled/p'\n"
        + "\n".join(iostat_header) + "\n",
        "iostat-tables": f"$ ziosim import {REL}/{DOC_INPUT} | sed -n '/^\\[devices.sdc-slow\\]/,/^$/p; "
        "/^\\[\\[pool.vdevs\\]\\]/,/^$/p'\n" + "\n".join(tables) + "\n",
        "iostat-stderr": f"$ ziosim import {REL}/{DOC_INPUT} --out tank.toml\n"
        + stderr.replace(f"wrote {os.devnull}", "wrote tank.toml"),
    }
    check_doc_blocks(DOC, "iostat-example", expected, UPDATE)

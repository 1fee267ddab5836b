"""``ziosim import`` of tunables files: modprobe.d, /sys/module dumps, loader.conf,
sysctl.conf, ``sysctl vfs.zfs``, /etc/system (importers/tunables_conf.py).

* Each platform's fixture parses to the settings it holds (names, values, line numbers).
* Every line of the fixtures gets exactly the verdict written here, so each verdict is
  produced by the lines meant to produce it and by no other.
* A scenario built from a status and a tunables file validates and carries the tunables;
  the files' platform narrows the release guess; a file for another platform, or two
  platforms' files, is a one-line error (exit 2).
* Tunables files alone: the audit table on stdout, exit 0 or 1.
* Round trip: what ``ziosim.platforms.render`` tells a user to persist reads back as the
  same tunables and values, for every platform and every release it ran.
* docs/import.md's tunables examples are regenerated here (``UPDATE_SNAPSHOTS=1``).
"""

from __future__ import annotations

import os
import re

import pytest
from typer.testing import CliRunner

from ziosim.errors import ScenarioError
from ziosim.importers import ImportTextError, split_sections
from ziosim.importers import scenario as isc
from ziosim.importers import tunables_conf as conf

from conftest import ROOT, check_doc_blocks

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

pytestmark = pytest.mark.needs_core  # names, defaults and ranges come from the core's declarations

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REL = "tests/python/fixtures/import"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def configs(*pairs: tuple[str, str]) -> tuple[conf.Config, ...]:
    """Parse (file name, text) pairs the way ``ziosim import`` does."""
    return isc.read_texts(list(pairs)).confs


def fixture(name: str) -> tuple[conf.Config, ...]:
    return configs((name, (FIX / name).read_text()))


def rows_of(release: str, *pairs: tuple[str, str]) -> list[conf.Row]:
    return conf.audit(configs(*pairs), release)


def one(release: str, text: str, name: str = "t.conf") -> conf.Row:
    (row,) = rows_of(release, (name, text))
    return row


# ----------------------------------------------------------------------------- parsing


def test_modprobe_fixture_parses_every_option_with_its_line():
    (c,) = fixture("zfs.conf")
    assert (c.platform, c.label, c.first_line, c.last_line) == ("linux", "modprobe.d options", 1, 14)
    assert [(s.line, s.module, s.name, s.value) for s in c.settings] == [
        (3, "zfs", "zfs_vdev_scrub_max_active", "8"),
        (3, "zfs", "zfs_scan_vdev_limit", "0x2000000"),  # two options on one line
        (6, "zfs", "zfs_scrub_delay", "0"),
        (6, "zfs", "zfs_top_maxinflight", "256"),  # after a TAB
        (7, "zfs", "zfs_no_scrub_io", "1"),
        (8, "zfs", "zfs_arc_max", "17179869184"),
        (9, "zfs", "zfs_txg_timeout", "5"),
        (9, "zfs", "zfs_resilver_min_time_ms", "0x0bb8"),
        (10, "zfs", "zfs_vdev_nia_delay", "0"),
        (11, "zfs", "vfs.zfs.scrub_min_time_ms", "5000"),
        (12, "zfs", "zfs_scan_mem_lim_fat", "10"),
        (13, "zfs", "zfs_dirty_data_max_percent", "20"),  # quotes removed, as the kernel does
        (14, "spl", "spl_kmem_cache_slab_limit", "16384"),
    ]


def test_loader_conf_fixture_parses_quoted_values_and_trailing_comments():
    (c,) = fixture("loader.conf")
    assert (c.platform, c.label) == ("freebsd", "loader.conf")
    got = {s.name: (s.line, s.value, s.syntax) for s in c.settings}
    assert got["zfs_load"] == (2, "YES", "loader.conf")
    assert got["vfs.zfs.scan_vdev_limit"] == (9, "16M", "loader.conf")  # "# the 2.2 default …" is a comment
    assert got["vfs.zfs.vdev.scrub_max_active"] == (8, "0x10", "loader.conf")
    assert len(c.settings) == 15


def test_etc_system_fixture_parses_set_lines_directives_and_star_comments():
    (c,) = fixture("etc-system")
    assert (c.platform, c.label, c.first_line) == ("illumos", "/etc/system", 1)
    got = [(s.line, s.syntax, s.module, s.name, s.value) for s in c.settings]
    assert got[:5] == [
        (9, "other", None, "forceload: drv/mpt_sas", ""),
        (10, "system", None, "maxusers", "2048"),
        (11, "system", "zfs", "zfs_scrub_delay", "0"),
        (12, "system", "zfs", "zfs_top_maxinflight", "0x80"),  # no spaces around =
        (13, "system", "zfs", "zfs_resilver_delay", "0"),
    ]
    assert (14, "system", None, "zfs_scan_idle", "0") in got  # the missing zfs: prefix is kept as written
    assert got[-1] == (23, "system", "sd", "sd_io_time", "20")


def test_dumps_parse_after_their_prompt_line():
    (sysfs,) = fixture("sys-module-params.txt")
    assert (sysfs.platform, sysfs.label, sysfs.first_line) == ("linux", "/sys/module/zfs/parameters", 2)
    assert sysfs.settings[0].name == "l2arc_noprefetch" and all(s.dump for s in sysfs.settings)
    (sysctl,) = fixture("sysctl-vfs-zfs.txt")
    assert (sysctl.platform, sysctl.label, sysctl.first_line) == ("freebsd", "sysctl vfs.zfs", 2)
    assert [(s.name, s.value) for s in sysctl.settings[5:7]] == [("vfs.zfs.txg.timeout", "5"),
                                                                 ("vfs.zfs.vdev.max_active", "1000")]


@pytest.mark.parametrize(("text", "number"), [
    ("options zfs zfs_vdev_scrub_max_active=8", 8),
    ("options zfs zfs_vdev_scrub_max_active=0x8", 8),
    ("options zfs zfs_vdev_scrub_max_active=0X1f", 31),
    ("options zfs zfs_vdev_scrub_max_active=010", 8),  # kstrtoint(val, 0): a leading 0 is octal
    ('options zfs zfs_vdev_scrub_max_active="12"', 12),
    ("/sys/module/zfs/parameters/zfs_vdev_scrub_max_active:12", 12),
])
def test_linux_values_are_read_as_the_kernel_reads_them(text, number):
    r = one("zfs-2.2", text)
    assert (r.tunable, r.number) == ("zfs_vdev_scrub_max_active", number)


@pytest.mark.parametrize(("text", "number"), [
    ("vfs.zfs.scan_vdev_limit=8388608", 8 << 20),  # sysctl.conf
    ('vfs.zfs.scan_vdev_limit="0x800000"', 8 << 20),  # loader.conf
    ('vfs.zfs.scan_vdev_limit="8M"', 8 << 20),  # getenv_quad's suffix
    ('vfs.zfs.scan_vdev_limit="8192k"', 8 << 20),
    ("vfs.zfs.scan_vdev_limit: 8388608", 8 << 20),  # sysctl output
    ("vfs.zfs.scan_vdev_limit=8388608   # halves the 2.2 default", 8 << 20),
])
def test_freebsd_values_are_read_as_the_kernel_reads_them(text, number):
    r = one("zfs-2.2", text)
    assert (r.tunable, r.number) == ("zfs_scan_vdev_limit", number)


def test_sysctl_conf_takes_no_size_suffix():
    assert one("zfs-2.2", "vfs.zfs.scan_vdev_limit=8M").verdict == "OUT OF RANGE"


@pytest.mark.parametrize(("text", "number"), [
    ("set zfs:zfs_top_maxinflight = 64", 64),
    ("set zfs:zfs_top_maxinflight=0x40", 64),
    ("set zfs:zfs_top_maxinflight = 0100", 64),  # system(4): "Octal (046)"
    ("SET zfs:zfs_top_maxinflight = 64", 64),  # commands are case-insensitive
    ("set zfs:zfs_top_maxinflight | 0x20", 32),  # OR into the default (32)
    ("set zfs:zfs_top_maxinflight & 0x30", 32),
])
def test_illumos_values_are_read_as_system4_describes(text, number):
    r = one("illumos-2014", text)
    assert (r.tunable, r.number) == ("zfs_top_maxinflight", number)


def test_etc_system_bit_operations_apply_to_the_value_so_far():
    rows = rows_of("illumos-2014", ("s", "set zfs:zfs_top_maxinflight = 0x40\nset zfs:zfs_top_maxinflight | 0x80\n"))
    assert [r.number for r in rows] == [64, 192]
    assert "overridden by s:2" in rows[0].why and conf.applied(rows)["zfs_top_maxinflight"].number == 192
    complement = one("illumos-2014", "set zfs:zfs_top_maxinflight = ~0")
    assert (complement.verdict, complement.number) == ("OUT OF RANGE", (1 << 32) - 1)  # a 32-bit int


def test_a_later_setting_of_the_same_tunable_wins():
    rows = rows_of("zfs-2.2", ("a.conf", "options zfs zfs_txg_timeout=10\noptions zfs zfs_txg_timeout=15\n"))
    assert [r.verdict for r in rows] == ["OK", "OK"]
    assert rows[0].why.endswith("overridden by a.conf:2") and "overridden" not in rows[1].why
    assert conf.applied(rows)["zfs_txg_timeout"].number == 15


def test_modprobe_continuation_lines_are_joined_as_kmod_does():
    rows = rows_of("zfs-2.2", ("z", "options zfs zfs_txg_timeout=10 \\\n    zfs_vdev_scrub_max_active=4\n"))
    assert [(r.line, r.tunable, r.number) for r in rows] == [(1, "zfs_txg_timeout", 10),
                                                             (1, "zfs_vdev_scrub_max_active", 4)]


def test_a_comment_after_modprobe_options_reaches_the_module():
    rows = rows_of("zfs-2.2", ("z", "options zfs zfs_txg_timeout=10 # 2023: longer txgs\n"))
    assert [(r.name, r.verdict) for r in rows] == [("zfs_txg_timeout", "OK"), ("# 2023: longer txgs", "UNKNOWN")]
    assert "start of a line" in rows[1].why


@pytest.mark.parametrize("line", ["options zfs zfs_txg_timeout = 10", "options zfs zfs_txg_timeout =10",
                                  "options zfs zfs_txg_timeout= 10"])
def test_spaces_around_a_modprobe_equals_are_one_row_saying_so(line):
    # kmod splits words at spaces: the module gets zfs_txg_timeout with no value, which
    # the kernel refuses for an integer parameter. One row names the tunable, the value
    # and the line to write instead.
    rows = rows_of("zfs-2.2", ("z", line + " zfs_scrub_min_time_ms=2000\n"))
    assert [(r.name, r.value, r.verdict) for r in rows] == [
        ("zfs_txg_timeout", "10", "OUT OF RANGE"), ("zfs_scrub_min_time_ms", "2000", "OK")]
    assert rows[0].why.startswith("spaces around =") and rows[0].why.endswith("write options zfs zfs_txg_timeout=10")


@pytest.mark.parametrize("text", [
    "options zfs\n",  # no parameter
    "vfs.zfs.txg.timeout = 5 6\n",  # two values
    "set zfs:zfs_scrub_delay\n",  # no value
])
def test_unreadable_lines_are_one_line_errors_naming_file_and_line(text):
    with pytest.raises(ImportTextError) as e:
        configs(("bad.conf", "# tuning\n" + text))
    assert e.value.line.startswith("bad.conf:2: ") and "\n" not in e.value.line


# ----------------------------------------------------------------------------- sections


def test_config_sections_beside_zpool_output_in_one_paste():
    text = ((FIX / "zfs-2.2-paused.txt").read_text()
            + "root@pve:~# cat /etc/modprobe.d/zfs.conf\n# set 2023-04-02\noptions zfs zfs_txg_timeout=10\n"
            + "$ zpool list -v\n" + (FIX / "zfs-2.2-list-v.txt").read_text().split("\n", 1)[1])
    kinds = [(s.kind, s.first_line) for s in split_sections("p.txt", text)]
    n = len((FIX / "zfs-2.2-paused.txt").read_text().splitlines())
    assert kinds == [("status", 1), ("conf", n + 2), ("list", n + 5)]


def test_comments_before_a_tunables_file_belong_to_it_and_before_a_status_are_an_error():
    (sec,) = split_sections("z", "# zfs tuning\n\n* more\noptions zfs zfs_txg_timeout=10\n")
    assert (sec.kind, sec.first_line) == ("conf", 1)
    with pytest.raises(ImportTextError, match=r'^z:1: "# zfs tuning" — expected the output of zpool status'):
        split_sections("z", "# zfs tuning\n" + (FIX / "zfs-2.2-paused.txt").read_text())
    with pytest.raises(ImportTextError, match=r"^z:1: "):
        split_sections("z", "# only a comment\n")


# ----------------------------------------------------------------------------- verdicts

V_OK, V_RED, V_UNSAFE, V_RANGE, V_NIR, V_NM, V_WPS, V_UNK, V_OTHER = conf.VERDICTS

EXPECTED = {
    ("zfs.conf", "zfs-2.2"): [
        (3, "zfs_vdev_scrub_max_active", V_OK), (3, "zfs_scan_vdev_limit", V_OK),
        (6, "zfs_scrub_delay", V_NIR), (6, "zfs_top_maxinflight", V_NIR),
        (7, "zfs_no_scrub_io", V_UNSAFE), (8, "zfs_arc_max", V_NM),
        (9, "zfs_txg_timeout", V_RED), (9, "zfs_resilver_min_time_ms", V_RED),
        (10, "zfs_vdev_nia_delay", V_RANGE), (11, "vfs.zfs.scrub_min_time_ms", V_WPS),
        (12, "zfs_scan_mem_lim_fat", V_UNK), (13, "zfs_dirty_data_max_percent", V_OK),
        (14, "spl_kmem_cache_slab_limit", V_OTHER),
    ],
    ("loader.conf", "zfs-2.2"): [
        (2, "zfs_load", V_OTHER), (3, "kern.geom.label.disk_ident.enable", V_OTHER),
        (6, "vfs.zfs.arc.max", V_NM), (7, "vfs.zfs.dirty_data_max_percent", V_OK),
        (8, "vfs.zfs.vdev.scrub_max_active", V_OK), (9, "vfs.zfs.scan_vdev_limit", V_RED),
        (10, "vfs.zfs.txg.timeout", V_OK), (11, "vfs.zfs.scrub_delay", V_NIR),
        (12, "vfs.zfs.top_maxinflight", V_NIR), (13, "vfs.zfs.prefetch_disable", V_NIR),
        (14, "vfs.zfs.zil.nocacheflush", V_UNSAFE), (15, "vfs.zfs.vdev.scrub_max_actve", V_UNK),
        (16, "vfs.zfs.vdev.nia_credit", V_RANGE), (17, "vfs.zfs.l2arc.noprefetch", V_NM),
        (18, "zfs_txg_timeout", V_WPS),
    ],
    ("etc-system", "illumos-2014"): [
        (9, "forceload: drv/mpt_sas", V_OTHER), (10, "maxusers", V_OTHER),
        (11, "zfs_scrub_delay", V_OK), (12, "zfs_top_maxinflight", V_OK), (13, "zfs_resilver_delay", V_OK),
        (14, "zfs_scan_idle", V_WPS), (15, "zfs_arc_max", V_NM), (16, "zfs_vdev_max_active", V_RED),
        (17, "zfs_nocacheflush", V_UNSAFE), (18, "zfs_vdev_nia_delay", V_UNK), (19, "zfs_scrub_dely", V_UNK),
        (20, "zfs_txg_synctime_ms", V_NIR), (21, "zfs_vdev_scrub_max_active", V_RANGE),
        (22, "zfs_vdev_async_write_max_active", V_RED), (23, "sd_io_time", V_OTHER),
    ],
}


@pytest.mark.parametrize(("name", "release"), sorted(EXPECTED))
def test_every_line_gets_its_verdict_and_no_other(name, release):
    rows = conf.audit(fixture(name), release)
    assert [(r.line, r.name, r.verdict) for r in rows] == EXPECTED[(name, release)]
    for r in rows:  # a value only where the scenario takes it, or where it is out of range
        if r.verdict in conf.APPLIED:
            assert r.tunable is not None and r.number is not None, r
        elif r.verdict != V_RANGE:
            assert r.tunable is None and r.number is None, r


def test_the_fixtures_produce_every_verdict():
    made = {v for rows in EXPECTED.values() for _, _, v in rows}
    assert made == set(conf.VERDICTS)


def test_dumps_are_real_names_so_unknown_never_and_not_modelled_for_the_rest():
    sysfs = conf.audit(fixture("sys-module-params.txt"), "zfs-2.2")
    by = {r.name: r for r in sysfs}
    assert {r.verdict for r in sysfs} == {V_OK, V_RED, V_NM}
    assert {n for n, r in by.items() if r.verdict == V_NM} == {
        "l2arc_noprefetch", "spa_slop_shift", "zfs_arc_max", "zfs_arc_min",
        "zfs_scan_ignore_errors", "zfs_txg_history", "zil_replay_disable", "zio_slow_io_ms"}
    assert {n for n, r in by.items() if r.verdict == V_OK} == {
        "zfs_vdev_scrub_max_active", "zfs_resilver_min_time_ms",  # changed
        "zfs_dirty_data_max", "zfs_dirty_data_max_max", "zfs_wrlog_data_max"}  # derived from RAM: never REDUNDANT
    assert by["l2arc_write_max"].verdict == V_RED  # modelled (the L2ARC feed), at its default
    assert by["zfs_vdev_queue_depth_pct"].verdict == V_RED  # modelled (the allocation throttle), at 1000
    sysctl = {r.name: r.verdict for r in conf.audit(fixture("sysctl-vfs-zfs.txt"), "zfs-2.2")}
    assert {n for n, v in sysctl.items() if v == V_OK} == {
        "vfs.zfs.vdev.nia_delay", "vfs.zfs.vdev.nia_credit", "vfs.zfs.scan_vdev_limit", "vfs.zfs.dirty_data_max"}
    assert sysctl["vfs.zfs.top_maxinflight"] == V_NIR and sysctl["vfs.zfs.arc_max"] == V_NM
    assert set(sysctl.values()) == {V_OK, V_RED, V_NIR, V_NM}


def test_a_dump_line_ziosim_has_in_later_releases_is_not_in_this_release():
    r = one("zfs-2.0", "/sys/module/zfs/parameters/zfs_vdev_nia_delay:5")
    assert r.verdict == V_NIR and "zfs-2.1 … zfs-2.3" in r.why and "point releases" in r.why


def test_explanations_say_what_the_spec_says():
    why = {(r.line, r.name): r.why for r in conf.audit(fixture("zfs.conf"), "zfs-2.2")}
    assert why[(6, "zfs_scrub_delay")] == ("ignored by zfs-2.2: zfs_scrub_delay is in zfs-0.6.5 … zfs-0.7 only; "
                                           "removed with the sorted scan in 0.8")
    assert why[(6, "zfs_top_maxinflight")].endswith("its nearest counterpart is zfs_scan_vdev_limit (bytes)")
    assert why[(7, "zfs_no_scrub_io")].endswith("the scrub then reads nothing and verifies nothing")
    assert "zfs.ram is the host's RAM" in why[(8, "zfs_arc_max")]
    assert "outside 1..1000" in why[(10, "zfs_vdev_nia_delay")]
    assert why[(11, "vfs.zfs.scrub_min_time_ms")].endswith("write options zfs zfs_scrub_min_time_ms=5000")
    assert why[(12, "zfs_scan_mem_lim_fat")].endswith("did you mean zfs_scan_mem_lim_fact?")
    assert "equal to the zfs-2.2 default" in why[(9, "zfs_txg_timeout")]
    bsd = {r.name: r.why for r in conf.audit(fixture("loader.conf"), "zfs-2.2")}
    assert "legacy alias that sets zfs_vdev_max_active" in bsd["vfs.zfs.top_maxinflight"]  # spec §9.2
    assert "zfs-2.2 names it vfs.zfs.prefetch.disable" in bsd["vfs.zfs.prefetch_disable"]
    assert bsd["zfs_txg_timeout"].endswith("write vfs.zfs.txg.timeout=10")
    ill = {r.name: r.why for r in conf.audit(fixture("etc-system"), "illumos-2014")}
    assert ill["zfs_scan_idle"].endswith("write set zfs:zfs_scan_idle = 0")
    assert ill["zfs_txg_synctime_ms"] == "ignored by illumos-2014: zfs_txg_synctime_ms is in illumos-2012 only"
    assert "read as octal" in ill["zfs_vdev_async_write_max_active"]


def test_the_renamed_scan_time_points_to_its_counterpart_both_ways():
    old = one("zfs-2.2", "options zfs zfs_scan_min_time_ms=3000")
    assert old.verdict == V_NIR and "renamed zfs_scrub_min_time_ms in 0.8.0" in old.why
    assert old.why.endswith("its nearest counterpart is zfs_scrub_min_time_ms (ms)")
    new = one("zfs-0.7", "options zfs zfs_scrub_min_time_ms=3000")
    assert new.verdict == V_NIR and new.why.endswith("its nearest counterpart is zfs_scan_min_time_ms (ms)")


def test_a_delay_knob_gets_no_counterpart_the_spec_does_not_name():
    r = one("zfs-2.1", "options zfs zfs_resilver_delay=0")
    assert r.verdict == V_NIR and "counterpart" not in r.why


def test_a_tunable_linux_never_exported_is_unknown_there():
    r = one("zfs-2.1", "options zfs zfs_delay_max_ns=1000")
    assert r.verdict == V_UNK and "never made it a setting" in r.why


def test_a_c_name_under_vfs_zfs_is_a_misspelling():
    r = one("zfs-2.2", "vfs.zfs.zfs_scan_vdev_limit=1")
    assert r.verdict == V_UNK and r.why.endswith("did you mean vfs.zfs.scan_vdev_limit?")


def test_a_name_that_is_not_zfs_like_is_unknown_with_a_suggestion_when_close():
    r = one("zfs-2.2", "options zfs scrub_max_active=4")
    assert r.verdict == V_UNK and "does not look like a ZFS name" in r.why


def test_unsafe_only_away_from_the_default():
    assert one("zfs-2.2", "options zfs zfs_nocacheflush=0").verdict == V_RED
    assert one("zfs-2.2", "options zfs zfs_nocacheflush=1").verdict == V_UNSAFE


def test_booleans_are_zero_or_one():
    assert one("zfs-2.2", "options zfs zfs_prefetch_disable=1").verdict == V_OK
    for bad in ("2", "Y", "-1", ""):
        r = one("zfs-2.2", f"options zfs zfs_prefetch_disable={bad}")
        assert r.verdict == V_RANGE and "0..1" in r.why, bad


def test_wrong_platform_lines_inside_a_file():
    rows = rows_of("zfs-2.2", ("z", "options zfs zfs_txg_timeout=10\nset zfs:zfs_txg_timeout = 10\n"
                                    "vfs.zfs.txg.timeout=10\nzfs_txg_timeout=10\n"))
    assert [r.verdict for r in rows] == [V_OK, V_WPS, V_WPS, V_WPS]
    assert all(r.why.endswith("write options zfs zfs_txg_timeout=10") for r in rows[1:])


# ----------------------------------------------------------------------------- platforms


def test_a_file_for_another_platform_is_a_one_line_error():
    with pytest.raises(ScenarioError) as e:
        conf.audit(fixture("zfs.conf"), "illumos-2014")
    assert e.value.line.startswith('zfs.conf:3: "options zfs zfs_vdev_scrub_max_active=8')
    assert "expected set zfs:NAME = VALUE lines (/etc/system): illumos-2014 ran on illumos only" in e.value.line
    with pytest.raises(ScenarioError, match=r"^loader.conf:2: .*zfs-0.8 ran on Linux only, and this is a FreeBSD "):
        conf.audit(fixture("loader.conf"), "zfs-0.8")
    with pytest.raises(ScenarioError, match=r"^etc-system:10: .*freebsd-9 ran on FreeBSD only"):
        conf.audit(fixture("etc-system"), "freebsd-9")


def test_files_of_two_platforms_are_refused():
    with pytest.raises(ScenarioError, match=r"^loader.conf:2: FreeBSD settings beside zfs.conf's Linux ones"):
        conf.audit(fixture("zfs.conf") + fixture("loader.conf"), "zfs-2.2")


# ----------------------------------------------------------------------------- scenarios


@pytest.fixture(scope="module")
def presets():
    from ziosim import _native

    return _native.presets()


def _build(names, presets, **opts):
    imp = isc.read_inputs([(f"{REL}/{n}", (FIX / n).read_text()) for n in names])
    return isc.build(imp, isc.Options(**opts), presets)


@pytest.mark.parametrize(("status", "tunables", "release", "expected"), [
    ("zfs-2.2-paused.txt", "zfs.conf", "zfs-2.2", {
        "zfs_vdev_scrub_max_active": 8, "zfs_scan_vdev_limit": 32 << 20, "zfs_no_scrub_io": 1,
        "zfs_txg_timeout": 5, "zfs_resilver_min_time_ms": 3000, "zfs_dirty_data_max_percent": 20}),
    ("zfs-2.2-paused.txt", "loader.conf", "zfs-2.2", {
        "zfs_dirty_data_max_percent": 20, "zfs_vdev_scrub_max_active": 16, "zfs_scan_vdev_limit": 16 << 20,
        "zfs_txg_timeout": 10, "zil_nocacheflush": 1}),
    ("illumos-2014-resilver.txt", "etc-system", "illumos-2014", {
        "zfs_scrub_delay": 0, "zfs_top_maxinflight": 128, "zfs_resilver_delay": 0, "zfs_vdev_max_active": 1000,
        "zfs_nocacheflush": 1, "zfs_vdev_async_write_max_active": 10}),
    ("freebsd-gptid-scrub.txt", "sysctl-vfs-zfs.txt", "zfs-2.2", None),  # --release: the status is freebsd-9's
])
def test_a_scenario_from_status_and_tunables_validates_and_carries_them(status, tunables, release, expected,
                                                                       presets):
    from ziosim import scenario

    opts = {"release": release} if expected is None else {}
    text = _build([status, tunables], presets, **opts)
    sc = scenario.loads(text, path="x.toml")
    assert sc.release == release
    rows = conf.audit(fixture(tunables), release)
    want = expected if expected is not None else {k: r.number for k, r in conf.applied(rows).items()}
    assert sc.config["tunables"] == dict(sorted(want.items()))
    header = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert [ln for ln in header if f"{tunables}:" in ln and " — " in ln] == [
        f"#   {r.describe()}".replace(f"{tunables}:", f"{REL}/{tunables}:") for r in rows]
    doc = tomllib.loads(text)
    assert doc["zfs"]["tunables"] == dict(sorted(want.items()))


def test_redundant_and_unsafe_values_are_marked_beside_their_keys(presets):
    text = _build(["zfs-2.2-paused.txt", "zfs.conf"], presets)
    assert f"zfs_txg_timeout = 5   # {REL}/zfs.conf:9: the zfs-2.2 default" in text
    assert f"zfs_no_scrub_io = 1   # {REL}/zfs.conf:7: UNSAFE, see the header" in text
    assert f"zfs_vdev_scrub_max_active = 8   # {REL}/zfs.conf:3\n" in text
    assert "tunables: the release's defaults except the 6 set by" in text


def test_without_tunables_files_the_scenario_has_no_tunables_table(presets):
    text = _build(["zfs-2.2-paused.txt"], presets)
    assert "[zfs.tunables]" not in text and "tunables: the release's defaults (zpool status" in text


NEUTRAL = (FIX / "zol-0.6.5-scrub.txt").read_text().replace("sda", "d1").replace("sdb", "d2") \
    .replace("sdc", "d3").replace("sdd", "d4")


@pytest.mark.parametrize(("tunables", "release"), [
    (None, "illumos-2014"),  # the 4-space format alone: the first of its printers
    ("zfs.conf", "zfs-0.6.5"),
    ("loader.conf", "freebsd-9"),
    ("etc-system", "illumos-2014"),
])
def test_the_tunables_files_platform_narrows_the_release_guess(tunables, release, presets):
    texts = [("status.txt", NEUTRAL)] + ([(tunables, (FIX / tunables).read_text())] if tunables else [])
    text = isc.build(isc.read_inputs(texts), isc.Options(), presets)
    assert tomllib.loads(text)["zfs"]["release"] == release
    if tunables:
        assert f"{tunables} is a " in text


def test_a_status_and_a_file_of_another_platform_is_refused(presets):
    with pytest.raises(ScenarioError) as e:
        _build(["illumos-2014-resilver.txt", "zfs.conf"], presets)
    assert e.value.line.startswith(f'{REL}/zfs.conf:3: "options zfs') and "illumos-2014 ran on illumos only" in \
        e.value.line


def test_tunables_alone_are_not_a_scenario():
    with pytest.raises(ScenarioError, match="tunables files on their own are audited with --release R"):
        isc.read_inputs([("zfs.conf", (FIX / "zfs.conf").read_text())])


def test_cli_tunables_beside_zpool_list_without_a_status_are_refused():
    r = _invoke("--release", "zfs-2.2", FIX / "zfs-2.2-list-v.txt", FIX / "zfs.conf")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines()[0].startswith(f"error: {FIX}/zfs-2.2-list-v.txt: no zpool status among the files")


# ----------------------------------------------------------------------------- round trip


def _shipped():
    from ziosim import _native, platforms

    return [(p, r) for r in _native.releases() for p in platforms.platforms_for(r)]


@pytest.mark.parametrize(("platform", "release"), _shipped())
def test_what_render_tells_a_user_to_persist_reads_back(platform, release):
    """Every knob of the release, changed from its default, rendered; the persistent lines
    (modprobe.d, sysctl.conf + loader.conf, /etc/system) parsed and audited again."""
    from ziosim import _native, platforms

    changes = []
    for t in _native.tunables():
        default = t["defaults"].get(release)
        if default is None or platforms.knob(platform, release, t["name"]) is None:
            continue
        changes.append((t["name"], default + 1 if default + 1 <= t["max"] else default - 1, default))
    assert len(changes) > 10
    lines = platforms.render(platform, release, changes)
    persistent = [ln for ln in lines if not ln.startswith("#") and not re.match(
        r"(echo|sysctl|update-initramfs|dracut) ", ln)]
    rows = conf.audit(configs(("persist", "\n".join(persistent) + "\n")), release)
    assert {(r.tunable, r.number) for r in rows} == {(t, v) for t, v, _ in changes}
    assert {r.verdict for r in rows} <= {V_OK, V_UNSAFE}, [r.describe() for r in rows if r.verdict not in "OK"]


# ----------------------------------------------------------------------------- CLI


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


def test_cli_tunables_alone_print_the_audit_table_and_exit_1_on_problems():
    r = _invoke("--release", "zfs-2.2", FIX / "zfs.conf")
    assert r.exit_code == 1, r.stderr
    head, *body = r.stdout.splitlines()
    assert head.split() == ["LINE", "NAME", "VALUE", "VERDICT", "EXPLANATION"]
    assert len(body) == len(EXPECTED[("zfs.conf", "zfs-2.2")])
    assert re.match(rf"{re.escape(str(FIX))}/zfs.conf:7 +zfs_no_scrub_io +1 +UNSAFE +sets zfs_no_scrub_io", body[4])
    (log,) = r.stderr.splitlines()
    assert log.startswith("audit of 13 settings for zfs-2.2 on linux: 3 OK, 2 REDUNDANT, 1 UNSAFE, 1 OUT OF RANGE")
    assert log.endswith("exit 1: 4 to fix (UNKNOWN, OUT OF RANGE, WRONG PLATFORM SYNTAX, UNSAFE)")


def test_cli_a_clean_tunables_file_exits_0(tmp_path):
    f = tmp_path / "zfs.conf"
    f.write_text("# fine\noptions zfs zfs_vdev_scrub_max_active=4 zfs_txg_timeout=5 zfs_arc_max=0\n")
    r = _invoke("--release", "zfs-2.2", f, "-q")
    assert r.exit_code == 0 and r.stderr == ""
    assert [ln.split()[3] for ln in r.stdout.splitlines()[1:]] == ["OK", "REDUNDANT", "NOT"]


def test_cli_a_sysctl_dump_alone_exits_0():
    r = _invoke("--release", "zfs-2.2", FIX / "sysctl-vfs-zfs.txt")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 24


@pytest.mark.parametrize(("args", "start"), [
    (["zfs.conf"], "error: {F}/zfs.conf: tunables only, no zpool status — allowed: --release R"),
    (["--release", "zfs-2.2", "zfs.conf", "--out", "x.toml"], "error: --out: the files hold tunables only"),
    (["--release", "zfs-0.8", "loader.conf"],
     'error: {F}/loader.conf:2: "zfs_load=\\"YES\\"" — expected options zfs'),
    (["illumos-2014-resilver.txt", "zfs.conf"], 'error: {F}/zfs.conf:3: "options zfs zfs_vdev_scrub_max_active=8'),
    (["--release", "zfs-2.2", "zfs.conf", "loader.conf"], "error: {F}/loader.conf:2: FreeBSD settings beside"),
])
def test_cli_tunables_errors_exit_2_on_one_line(args, start):
    r = _invoke(*[FIX / a if a in ("zfs.conf", "loader.conf", "illumos-2014-resilver.txt") else a for a in args])
    assert r.exit_code == 2 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith(start.format(F=FIX)), line


def test_cli_scenario_with_tunables_logs_one_line_per_setting():
    r = _invoke(FIX / "zfs-2.2-paused.txt", FIX / "zfs.conf")
    assert r.exit_code == 0, r.stderr
    *audit, last = r.stderr.splitlines()
    rows = conf.audit(configs((str(FIX / "zfs.conf"), (FIX / "zfs.conf").read_text())), "zfs-2.2")
    assert audit == [row.describe() for row in rows]
    assert last.endswith("1 action, 6 tunables from 13 settings; check the assumptions in its # header")
    assert tomllib.loads(r.stdout)["zfs"]["tunables"]["zfs_vdev_scrub_max_active"] == 8
    quiet = _invoke(FIX / "zfs-2.2-paused.txt", FIX / "zfs.conf", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == r.stdout


# ----------------------------------------------------------------------------- docs/import.md

DOC = ROOT / "docs" / "import.md"


def _excerpt(text: str) -> str:
    """What ``sed -n '/^\\[zfs\\]/,/^\\[devices/p'`` prints."""
    lines = text.splitlines(keepends=True)
    start = lines.index("[zfs]\n")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("[devices"))
    return "".join(lines[start:end + 1])


def test_doc_tunables_examples_are_current(presets, monkeypatch):
    monkeypatch.chdir(ROOT)  # the example names the files relative to the repository
    alone = _invoke("--release", "zfs-2.2", f"{REL}/zfs.conf")
    assert alone.exit_code == 1
    both = _build(["zfs-2.2-paused.txt", "zfs.conf"], presets)
    expected = {
        "conf-input": f"$ cat {REL}/zfs.conf\n" + (FIX / "zfs.conf").read_text(),
        "conf-audit": f"$ ziosim import --release zfs-2.2 {REL}/zfs.conf\n" + alone.stdout
        + "$ echo $?\n1\n",
        "conf-scenario": f"$ ziosim import {REL}/zfs-2.2-paused.txt {REL}/zfs.conf | "
        "sed -n '/^\\[zfs\\]/,/^\\[devices/p'\n" + _excerpt(both),
    }
    check_doc_blocks(DOC, "conf-example", expected, UPDATE)


def test_doc_error_examples_are_what_ziosim_prints():
    block = DOC.read_text().split("## Tunables files")[1].split("are the files of two platforms:")[1].split("```")[1]
    shown = [ln for ln in block.splitlines() if ln.startswith("error: ")]
    made = []
    for files, release in ((["zfs.conf"], "illumos-2014"), (["zfs.conf", "loader.conf"], "zfs-2.2")):
        with pytest.raises(ScenarioError) as e:
            conf.audit(sum((fixture(f) for f in files), ()), release)
        made.append(f"error: {e.value.line}")
    assert shown == made


@pytest.mark.needs_core
@pytest.mark.parametrize("release", ["freebsd-9", "zfs-2.2"])
def test_freebsd_12_legacy_names_are_real_names_not_misspellings(release):
    # spec/zfs-model.md §9.3: FreeBSD ≤12 / FreeNAS name zfs_scan_legacy vfs.zfs.zfs_scan_legacy.
    r = one(release, 'vfs.zfs.zfs_scan_legacy="1"\n', "loader.conf")
    assert r.verdict == "NOT IN THIS RELEASE", r.why
    assert "FreeBSD 12" in r.why and "vfs.zfs.scan_legacy" in r.why and "did you mean" not in r.why
    r = one(release, 'vfs.zfs.zfs_scan_checkpoint_interval="3600"\n', "loader.conf")
    assert r.verdict == "NOT IN THIS RELEASE" and "vfs.zfs.scan_checkpoint_intval" in r.why

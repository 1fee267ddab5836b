"""ziosim.platforms: which knob sets each tunable per platform and release, and the commands.

The expected names below are the ones the sources declare (zfs-model.md §9.2/§9.3, users.md
§4.6, and the files docs/platforms.md lists). docs/platforms.md is checked against the
module: its name table and its examples are regenerated here, and ``UPDATE_SNAPSHOTS=1``
rewrites them in place.
"""

from __future__ import annotations

import ast
import os
import re

import pytest

from ziosim import _native, platforms
from ziosim.platforms import Knob, knob, platforms_for, render

from conftest import REAL_CORE, ROOT

DOC = ROOT / "docs" / "platforms.md"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(autouse=True)
def _core(request):
    """The real core when it is built, else the fake one (same tunable table)."""
    if not REAL_CORE:
        request.getfixturevalue("fake_core")


def declared() -> dict:
    return {t["name"]: t["defaults"] for t in _native.tunables()}


# ---- platforms_for ------------------------------------------------------------------------

SHIPPED = {
    "solaris-2009": ["illumos"],
    "freebsd-9": ["freebsd"],
    "illumos-2012": ["illumos"],
    "illumos-2014": ["illumos"],
    "zfs-0.6.5": ["linux"],
    "zfs-0.7": ["linux"],
    "zfs-0.8": ["linux"],
    "zfs-2.0": ["linux", "freebsd"],
    "zfs-2.1": ["linux", "freebsd"],
    "zfs-2.2": ["linux", "freebsd"],
    "zfs-2.3": ["linux", "freebsd"],
}


def test_every_release_the_core_knows_is_mapped():
    assert sorted(SHIPPED) == sorted(_native.releases())


@pytest.mark.parametrize("release", sorted(SHIPPED))
def test_platforms_for(release):
    assert platforms_for(release) == SHIPPED[release]


def test_platforms_for_an_unknown_release_names_it_and_the_allowed_ones():
    with pytest.raises(ValueError) as e:
        platforms_for("zfs-2.4")
    message = str(e.value)
    assert '"zfs-2.4"' in message
    assert all(r in message for r in SHIPPED)
    with pytest.raises(ValueError, match="hint: did you mean zfs-2.2"):
        platforms_for("zfs2.2")


# ---- knob: every (platform, release, tunable) --------------------------------------------

MIRROR = {
    "zfs_vdev_mirror_rotating_inc",
    "zfs_vdev_mirror_rotating_seek_inc",
    "zfs_vdev_mirror_rotating_seek_offset",
    "zfs_vdev_mirror_non_rotating_inc",
    "zfs_vdev_mirror_non_rotating_seek_inc",
}
# Tunables ziosim models for a release whose platform never exported them: plain globals or
# constants in that source (or, for the mirror knobs, not there at all before ZoL 0.7).
_OPENZFS_NOT_EXPORTED = {
    "zfs-0.6.5": MIRROR | {"zvol_immediate_write_sz", "zfs_delay_max_ns"},
    "zfs-0.7": {"zvol_immediate_write_sz", "zfs_delay_max_ns"},
    # zfs_vdev_def_queue_depth: a plain global until 2.2 (ece7ab7e7d); FreeBSD's 2.0/2.1
    # sysctl_os.c declared vfs.zfs.vdev.def_queue_depth, which these rows do not model.
    "zfs-0.8": {"zvol_immediate_write_sz", "zfs_delay_max_ns", "zfs_vdev_def_queue_depth"},
    "zfs-2.0": {"zvol_immediate_write_sz", "zfs_delay_max_ns", "zfs_rebuild_queue_limit", "zfs_vdev_def_queue_depth"},
    "zfs-2.1": {"zvol_immediate_write_sz", "zfs_delay_max_ns", "zfs_vdev_def_queue_depth"},
    "zfs-2.2": {"zvol_immediate_write_sz"},
    "zfs-2.3": {"zvol_immediate_write_sz"},
}
DELIBERATE_NONE = {
    **{("linux", r): s for r, s in _OPENZFS_NOT_EXPORTED.items()},
    **{("freebsd", r): s for r, s in _OPENZFS_NOT_EXPORTED.items() if r.startswith("zfs-2.")},
    ("freebsd", "freebsd-9"): MIRROR
    | {"zfs_immediate_write_sz", "zvol_immediate_write_sz", "zil_slog_limit"},
    ("illumos", "solaris-2009"): MIRROR | {"zfs_txg_synctime_ms", "zil_slog_limit"},
    ("illumos", "illumos-2012"): MIRROR,
    ("illumos", "illumos-2014"): MIRROR,
}


def every_combination():
    for release, shipped in SHIPPED.items():
        for platform in shipped:
            yield platform, release


def test_the_core_declares_106_tunables_and_each_has_a_row():
    names = set(declared())
    assert len(names) == 106
    assert names == {r.tunable for r in platforms._ROWS}


def test_every_modelled_tunable_has_a_knob_or_a_deliberate_none():
    wrong = []
    for platform, release in every_combination():
        for name, defaults in declared().items():
            if defaults[release] is None:
                continue
            k = knob(platform, release, name)
            if (k is None) != (name in DELIBERATE_NONE[(platform, release)]):
                wrong.append((platform, release, name, k))
    assert wrong == []


def test_no_knob_for_a_tunable_the_release_lacks():
    named = [
        (platform, release, name)
        for platform, release in every_combination()
        for name, defaults in declared().items()
        if defaults[release] is None and knob(platform, release, name) is not None
    ]
    assert named == []


def test_knobs_are_well_formed():
    for platform, release in every_combination():
        for name in declared():
            k = knob(platform, release, name)
            if k is None:
                continue
            assert (k.platform, k.tunable) == (platform, name)
            if platform == "freebsd":
                assert re.fullmatch(r"vfs\.zfs(\.[a-z0-9_]+)+", k.name), k.name
            else:
                assert k.name == name  # the C variable itself
            if platform == "illumos":
                assert k.runtime and k.width_bits in (32, 64)
            else:
                assert k.width_bits == 0


# platform, release, tunable -> name, runtime, width_bits (None: no knob)
SPOT = [
    # Linux: the parameter is the C name; 0644 is live, 0444 only at module load.
    ("linux", "zfs-2.2", "zfs_scan_vdev_limit", "zfs_scan_vdev_limit", True, 0),
    ("linux", "zfs-2.2", "zfs_resilver_min_time_ms", "zfs_resilver_min_time_ms", True, 0),
    ("linux", "zfs-0.7", "zfs_scrub_delay", "zfs_scrub_delay", True, 0),
    ("linux", "zfs-2.2", "zfs_dirty_data_max_max", "zfs_dirty_data_max_max", False, 0),
    ("linux", "zfs-2.2", "zfs_scrub_delay", None, None, None),
    ("linux", "zfs-0.8", "zfs_top_maxinflight", None, None, None),
    ("linux", "zfs-0.6.5", "zfs_vdev_mirror_rotating_inc", None, None, None),
    # FreeBSD 13+: vfs.<scope with _ -> .>.<name>
    ("freebsd", "zfs-2.2", "zfs_vdev_scrub_max_active", "vfs.zfs.vdev.scrub_max_active", True, 0),
    ("freebsd", "zfs-2.2", "zfs_txg_timeout", "vfs.zfs.txg.timeout", True, 0),
    ("freebsd", "zfs-2.2", "zfs_scan_vdev_limit", "vfs.zfs.scan_vdev_limit", True, 0),
    ("freebsd", "zfs-2.2", "zfs_vdev_nia_delay", "vfs.zfs.vdev.nia_delay", True, 0),
    ("freebsd", "zfs-2.3", "zil_slog_bulk", "vfs.zfs.zil.slog_bulk", True, 0),
    ("freebsd", "zfs-2.2", "zfs_scrub_min_time_ms", "vfs.zfs.scrub_min_time_ms", True, 0),
    ("freebsd", "zfs-2.2", "zfs_scan_legacy", "vfs.zfs.scan_legacy", True, 0),
    ("freebsd", "zfs-2.2", "zfs_scan_checkpoint_intval", "vfs.zfs.scan_checkpoint_intval", True, 0),
    ("freebsd", "zfs-2.2", "zfs_scan_mem_lim_soft_fact", "vfs.zfs.scan_mem_lim_soft_fact", True, 0),
    ("freebsd", "zfs-2.1", "zfs_rebuild_vdev_limit", "vfs.zfs.rebuild_vdev_limit", True, 0),
    ("freebsd", "zfs-2.2", "zfs_vdev_mirror_rotating_inc", "vfs.zfs.vdev.mirror.rotating_inc", True, 0),
    ("freebsd", "zfs-2.2", "zfetch_max_distance", "vfs.zfs.prefetch.max_distance", True, 0),
    ("freebsd", "zfs-2.2", "zfs_dirty_data_max_max", "vfs.zfs.dirty_data_max_max", False, 0),
    ("freebsd", "zfs-2.0", "zfs_vdev_nia_delay", None, None, None),  # ziosim's zfs-2.0 is 2.0.0, before the backport
    # FreeBSD 9: the legacy names (vfs.zfs.top_maxinflight is zfs_top_maxinflight there).
    ("freebsd", "freebsd-9", "zfs_scrub_delay", "vfs.zfs.scrub_delay", True, 0),
    ("freebsd", "freebsd-9", "zfs_top_maxinflight", "vfs.zfs.top_maxinflight", True, 0),
    ("freebsd", "freebsd-9", "zfs_scan_min_time_ms", "vfs.zfs.scan_min_time_ms", True, 0),
    ("freebsd", "freebsd-9", "zfs_vdev_max_pending", "vfs.zfs.vdev.max_pending", True, 0),
    ("freebsd", "freebsd-9", "zfs_txg_timeout", "vfs.zfs.txg.timeout", True, 0),
    ("freebsd", "freebsd-9", "zfs_nocacheflush", "vfs.zfs.cache_flush_disable", False, 0),
    ("freebsd", "freebsd-9", "zfs_write_limit_override", "vfs.zfs.write_limit_override", False, 0),
    ("freebsd", "freebsd-9", "zfs_vdev_nia_delay", None, None, None),
    # illumos: the symbol, /W for 32-bit C types, /Z for 64-bit.
    ("illumos", "illumos-2014", "zfs_dirty_data_max", "zfs_dirty_data_max", True, 64),
    ("illumos", "illumos-2012", "zfs_scrub_delay", "zfs_scrub_delay", True, 32),
    ("illumos", "illumos-2014", "zfs_vdev_scrub_max_active", "zfs_vdev_scrub_max_active", True, 32),
    ("illumos", "illumos-2012", "zfs_write_limit_min", "zfs_write_limit_min", True, 64),
    ("illumos", "solaris-2009", "zil_disable", "zil_disable", True, 32),
    ("illumos", "illumos-2014", "zfs_vdev_nia_delay", None, None, None),
    ("illumos", "illumos-2014", "zfs_scan_vdev_limit", None, None, None),
]




@pytest.mark.parametrize("platform, release, tunable, name, runtime, bits", SPOT, ids=["-".join(s[:3]) for s in SPOT])
def test_spot_checks_against_the_spec(platform, release, tunable, name, runtime, bits):
    expected = None if name is None else Knob(platform, tunable, name, runtime, bits)
    assert knob(platform, release, tunable) == expected


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("solaris", "illumos-2014", "zfs_scrub_delay"), '"solaris"'),
        (("linux", "illumos-2014", "zfs_scrub_delay"), "illumos-2014 shipped on illumos only"),
        (("freebsd", "zfs-0.8", "zfs_scrub_delay"), "zfs-0.8 shipped on linux only"),
        (("linux", "zfs-2.9", "zfs_scrub_delay"), '"zfs-2.9"'),
        (("linux", "zfs-2.2", "zfs_scan_vdev_limt"), "did you mean zfs_scan_vdev_limit?"),
    ],
)
def test_knob_rejects_what_does_not_exist(args, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        knob(*args)


# ---- render -------------------------------------------------------------------------------


def commands(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("#")]


def test_render_linux_apply_persist_revert():
    lines = render(
        "linux",
        "zfs-2.2",
        [("zfs_scan_vdev_limit", 16777216, 4194304), ("zfs_vdev_scrub_max_active", 5, 3)],
    )
    cmds = commands(lines)
    assert "echo 16777216 > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in cmds
    assert "echo 5 > /sys/module/zfs/parameters/zfs_vdev_scrub_max_active" in cmds
    options = [c for c in cmds if c.startswith("options zfs")]
    assert options == ["options zfs zfs_scan_vdev_limit=16777216 zfs_vdev_scrub_max_active=5"]
    assert any("/etc/modprobe.d/zfs.conf" in line for line in lines)
    assert any(c.startswith("update-initramfs -u") for c in cmds)
    assert any(c.startswith("dracut -f") for c in cmds)
    # revert comes after apply, with the defaults
    assert cmds.index("echo 4194304 > /sys/module/zfs/parameters/zfs_scan_vdev_limit") > cmds.index(options[0])
    assert "echo 3 > /sys/module/zfs/parameters/zfs_vdev_scrub_max_active" in cmds


def test_render_linux_boot_only_parameter_has_no_apply_now_line():
    lines = render("linux", "zfs-2.2", [("zfs_dirty_data_max_max", 8589934592, 4294967296)])
    assert not any("/sys/module" in c for c in commands(lines))
    assert commands(lines)[0] == "options zfs zfs_dirty_data_max_max=8589934592"
    assert any("zfs_dirty_data_max_max" in line and "next boot" in line for line in lines if line.startswith("#"))


def test_render_freebsd_13():
    lines = render(
        "freebsd",
        "zfs-2.2",
        [("zfs_vdev_scrub_max_active", 5, 3), ("zfs_txg_timeout", 10, 5), ("zfs_dirty_data_max_percent", 20, 10)],
    )
    cmds = commands(lines)
    assert cmds[:2] == ["sysctl vfs.zfs.vdev.scrub_max_active=5", "sysctl vfs.zfs.txg.timeout=10"]
    assert "vfs.zfs.vdev.scrub_max_active=5" in cmds  # the /etc/sysctl.conf line
    assert 'vfs.zfs.dirty_data_max_percent="20"' in cmds  # the /boot/loader.conf line
    assert not any(c.startswith("sysctl vfs.zfs.dirty_data_max_percent") for c in cmds)
    assert any("/etc/sysctl.conf" in line for line in lines) and any("/boot/loader.conf" in line for line in lines)
    assert cmds[-2:] == ["sysctl vfs.zfs.vdev.scrub_max_active=3", "sysctl vfs.zfs.txg.timeout=5"]


def test_render_freebsd_9_uses_the_legacy_names():
    lines = render("freebsd", "freebsd-9", [("zfs_scrub_delay", 0, 4), ("zfs_nocacheflush", 1, 0)])
    cmds = commands(lines)
    assert cmds[0] == "sysctl vfs.zfs.scrub_delay=0"
    assert 'vfs.zfs.cache_flush_disable="1"' in cmds
    assert cmds[-1] == "sysctl vfs.zfs.scrub_delay=4"
    assert not any("sysctl vfs.zfs.cache_flush_disable" in c for c in cmds)


def test_render_illumos_mdb_width_and_etc_system():
    lines = render(
        "illumos", "illumos-2012", [("zfs_scrub_delay", 0, 4), ("zfs_write_limit_override", 1073741824, 0)]
    )
    cmds = commands(lines)
    assert cmds == [
        "echo 'zfs_scrub_delay/W0t0' | mdb -kw",
        "echo 'zfs_write_limit_override/Z0t1073741824' | mdb -kw",
        "set zfs:zfs_scrub_delay = 0",
        "set zfs:zfs_write_limit_override = 1073741824",
        "echo 'zfs_scrub_delay/W0t4' | mdb -kw",
        "echo 'zfs_write_limit_override/Z0t0' | mdb -kw",
    ]
    assert any("/etc/system" in line and "reboot" in line for line in lines)


def test_render_illumos_variable_read_at_init_gets_no_mdb_line():
    lines = render("illumos", "illumos-2014", [("zfs_dirty_data_max_max", 8589934592, 4294967296)])
    assert commands(lines) == ["set zfs:zfs_dirty_data_max_max = 8589934592"]


def test_zil_disable_reaches_a_file_system_only_when_it_is_remounted():
    lines = render("illumos", "solaris-2009", [("zil_disable", 1, 0)])
    assert "echo 'zil_disable/W0t1' | mdb -kw" in commands(lines)
    assert any(line.startswith("# note: zil_disable is read when a file system is mounted") for line in lines)
    other = render("illumos", "solaris-2009", [("zfs_vdev_max_pending", 10, 35)])
    assert not any("mounted" in line for line in other)


def test_render_says_so_for_a_tunable_without_a_knob_and_invents_no_name():
    lines = render("linux", "zfs-2.2", [("zfs_scrub_delay", 0, 4), ("zfs_scan_vdev_limit", 16777216, 4194304)])
    notes = [line for line in lines if line.startswith("# zfs_scrub_delay:")]
    assert len(notes) == 1 and "no such tunable" in notes[0]
    assert not any("zfs_scrub_delay" in c for c in commands(lines))
    lines = render("linux", "zfs-2.1", [("zfs_delay_max_ns", 50000000, 100000000)])
    assert commands(lines) == []
    assert any("zfs_delay_max_ns: not a module parameter" in line for line in lines)


def test_render_with_no_changes_says_the_defaults_are_best():
    for platform, release in every_combination():
        lines = render(platform, release, [])
        assert commands(lines) == []
        assert any("defaults are already best" in line for line in lines)


def test_render_every_platform_and_release_renders_every_knob():
    """One render per combination with every tunable that has a knob: no crash, no stray lines."""
    for platform, release in every_combination():
        changes = []
        for name, defaults in declared().items():
            if knob(platform, release, name) is not None:
                changes.append((name, defaults[release], defaults[release]))
        lines = render(platform, release, changes)
        assert lines[0].startswith("# ")
        assert all(line == line.strip() for line in lines)


@pytest.mark.parametrize(
    "changes, fragment",
    [
        ([("zfs_scan_vdev_limit", -1, 4194304)], "changes[0].new_value: -1"),
        ([("zfs_scan_vdev_limit", True, 4194304)], "changes[0].new_value: True"),
        ([("zfs_scan_vdev_limit", "16M", 4194304)], "changes[0].new_value: '16M'"),
        ([("zfs_scan_vdev_limit", 1, 2), ("zfs_scan_vdev_limit", 3, 4)], "changes[1]: zfs_scan_vdev_limit"),
        ([("zfs_scan_vdev_limt", 1, 2)], "did you mean zfs_scan_vdev_limit?"),
        ([("zfs_scan_vdev_limit", 1)], "changes[0]:"),
        ([(["zfs_scan_vdev_limit"], 1, 2)], "changes[0]: ['zfs_scan_vdev_limit']"),
    ],
)
def test_render_rejects_bad_changes(changes, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        render("linux", "zfs-2.2", changes)


# ---- docs/platforms.md ---------------------------------------------------------------------

TABLE = re.compile(r"(<!-- names: generated -->\n)(?P<body>.*?)(<!-- names: end -->)", re.S)
EXAMPLE = re.compile(r"(```python\n(?P<call>render\(.*?\))\n```\n\n```text\n)(?P<body>.*?)(```)", re.S)


def run_call(call: str) -> str:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "render"
    return "\n".join(render(*[ast.literal_eval(a) for a in node.args])) + "\n"


def test_docs_name_table_is_generated_from_the_module():
    doc = DOC.read_text(encoding="utf-8")
    want = "\n".join(platforms._name_table()) + "\n"
    m = TABLE.search(doc)
    assert m, "docs/platforms.md lost its generated-table markers"
    if UPDATE and m["body"] != want:
        DOC.write_text(doc[: m.start("body")] + want + doc[m.end("body") :], encoding="utf-8")
        return
    assert m["body"] == want, "docs/platforms.md is stale: UPDATE_SNAPSHOTS=1 rewrites it"


def test_docs_examples_are_what_render_prints():
    doc = DOC.read_text(encoding="utf-8")
    found = list(EXAMPLE.finditer(doc))
    assert len(found) >= 4, "one example per platform, FreeBSD twice"
    if UPDATE:
        doc = EXAMPLE.sub(lambda m: m.group(1) + run_call(m["call"]) + m.group(4), doc)
        DOC.write_text(doc, encoding="utf-8")
        return
    for m in found:
        assert m["body"] == run_call(m["call"]), m["call"]


@pytest.mark.needs_core
def test_revert_calls_old_values_defaults_only_when_they_are():
    to_default = render("linux", "zfs-2.2", [("zfs_scan_vdev_limit", 33554432, 16777216)])
    assert any(ln.startswith("# revert to the zfs-2.2 defaults:") for ln in to_default)
    to_before = render("linux", "zfs-2.2", [("zfs_scan_vdev_limit", 16777216, 4194304)])
    assert any(ln.startswith("# revert to the values before:") for ln in to_before)
    assert "echo 4194304 > /sys/module/zfs/parameters/zfs_scan_vdev_limit" in to_before

"""The special allocation class (`zpool create tank raidz2 … special mirror nvme0 nvme1`,
OpenZFS 0.8+): `pool.special` and `zfs.special_small_blocks` in a scenario, the run
config they become (docs/internals.md), the special section of `zpool status`, `zpool
status -j` and `zpool iostat -v`, vdevs.parquet's `class` column, `--pool … special …`, and
`ziosim import` of a text with a special section.

The expected texts are written by hand from cmd/zpool/zpool_main.c: ``status_callback``
calls ``print_class_vdevs`` for dedup, special, logs, then ``print_l2cache`` and
``print_spares`` (ZM@zfs-0.8.0, @zfs-2.2.0), ``print_class_vdevs`` prints ``"\\t%s\\t\\n"``
before a class's first vdev; ``print_vdev_stats`` walks the normal top-level vdevs then
``class_name[] = {dedup, special, logs}``, each labelled by ``print_iostat_dashes(cb, 0,
class)`` (a blank line in the histograms); ``status_callback_json`` puts
``class_vdevs_nvlist(…, "special", item)`` after ``vdevs`` and before ``logs``
(ZM@zfs-2.3.0).

Tests marked ``needs_core`` that run a simulation need a core that knows `pool.special`.
"""

from __future__ import annotations

import copy
import json

import pytest

from ziosim import ScenarioError, poolspec, scenario
from ziosim.report.iostat import pool_rows, zpool_iostat, zpool_iostat_r, zpool_iostat_w
from ziosim.report.status import zpool_status, zpool_status_config
from ziosim.report.status_json import status_json, zpool_status_json

from conftest import ROOT

FIXTURES = ROOT / "tests" / "python" / "fixtures"
FIX = FIXTURES / "import"
E = 1697241601  # Sat Oct 14 00:00:01 2023 UTC, the default scenario start
HDD = "hdd-7200-sata-2014"

# --------------------------------------------------------------------------- scenarios

HEAD = '[zfs]\nrelease = "{release}"\n{zfs}\n'
POOL = ('[pool]\nfill = 0.5\nvdevs = [{ type = "raidz2", disks = 6, device = "wd20efrx" }]\n{pool}\n'
        'cache = { device = "samsung-850pro" }\nlog = [{ device = "samsung-850pro", count = 2, mirror = true }]\n'
        'spares = { device = "wd20efrx" }\n')
MIRROR = 'special = [{ type = "mirror", disks = 2, device = "samsung-850pro" }]'


def text(pool: str = MIRROR, zfs: str = "", release: str = "zfs-2.2", extra: str = "") -> str:
    return HEAD.format(release=release, zfs=zfs) + POOL.replace("{pool}", pool) + extra


def err(t: str) -> str:
    with pytest.raises(ScenarioError) as e:
        scenario.loads(t)
    assert "\n" not in e.value.line, e.value.line
    return str(e.value)


@pytest.fixture
def sc(fake_core):
    return lambda t: scenario.loads(t)


def test_special_vdevs_follow_vdevs_in_the_run_config_and_take_the_next_names(sc):
    c = sc(text()).config
    pool = c["pool"]
    assert list(pool) == ["name", "ashift", "recordsize_bytes", "allocated_bytes", "vdevs", "special", "cache", "log",
                          "spares"]
    assert pool["special"] == [{"type": "mirror", "disks": [{"name": "sdg", "device": "samsung-850pro", "link": None},
                                                            {"name": "sdh", "device": "samsung-850pro", "link": None}]}]
    # zpool create's order: data, special; the cache, log and spares keep theirs after them.
    assert [d["name"] for d in pool["vdevs"][0]["disks"]] == ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    assert [d["name"] for d in pool["cache"]] == ["sdi"]
    assert [d["name"] for d in pool["log"][0]["disks"]] == ["sdj", "sdk"]
    assert [d["name"] for d in pool["spares"]] == ["sdl"]
    assert "special_small_blocks_bytes" not in c


def test_without_special_vdevs_the_run_config_is_as_before(sc):
    """No `special` key, no `special_small_blocks_bytes`: every existing scenario keeps its hash."""
    for t in (text(pool=""), text(pool="special = []"), text(pool="", zfs="special_small_blocks = 0")):
        c = sc(t).config
        assert "special" not in c["pool"] and "special_small_blocks_bytes" not in c
        assert [d["name"] for d in c["pool"]["cache"]] == ["sdg"]
    assert sc(text(pool="")).hash == sc(text(pool="special = []")).hash


def test_bundled_scenarios_have_no_special_keys(fake_core):
    from conftest import SCENARIOS

    for path in sorted(SCENARIOS.glob("*.toml")):
        c = scenario.load(path).config
        assert "special" not in c["pool"] and "special_small_blocks_bytes" not in c, path.name


def test_special_small_blocks_is_written_in_bytes_next_to_the_dataset_properties(sc):
    c = sc(text(zfs='sync = "always"\nspecial_small_blocks = "32K"')).config
    assert c["special_small_blocks_bytes"] == 32768
    keys = list(c)
    assert keys.index("special_small_blocks_bytes") == keys.index("sync") + 1


@pytest.mark.parametrize("release, value", [("zfs-0.8", "128K"), ("zfs-0.8", 512), ("zfs-2.0", "1M"),
                                            ("zfs-2.1", "1M"), ("zfs-2.2", "16M"), ("zfs-2.3", "4K")])
def test_special_small_blocks_largest_per_release(sc, release, value):
    from ziosim.units import parse_size

    c = sc(text(zfs=f"special_small_blocks = {json.dumps(value)}", release=release)).config
    assert c["special_small_blocks_bytes"] == parse_size(value, "x")


@pytest.mark.parametrize("release, value, expected", [
    ("zfs-0.8", '"256K"', 'zfs.special_small_blocks: "256K" — allowed on zfs-0.8: 0 or a power of two from 512 to '
                          "128K; up to 1M from release zfs-2.0"),
    ("zfs-2.1", '"2M"', 'zfs.special_small_blocks: "2M" — allowed on zfs-2.1: 0 or a power of two from 512 to 1M; '
                        "up to 16M from release zfs-2.2"),
    ("zfs-2.2", '"32M"', 'zfs.special_small_blocks: "32M" — allowed on zfs-2.2: 0 or a power of two from 512 to 16M'),
    ("zfs-2.2", '"48K"', 'zfs.special_small_blocks: "48K" — allowed on zfs-2.2: 0 or a power of two from 512 to 16M'),
    ("zfs-2.2", "256", "zfs.special_small_blocks: 256 — allowed on zfs-2.2: 0 or a power of two from 512 to 16M"),
    ("zfs-0.7", '"32K"', 'zfs.special_small_blocks: "32K" — allowed on zfs-0.7: 0 (the property came with allocation '
                         "classes in OpenZFS 0.8.0); other values from release zfs-0.8"),
    ("illumos-2014", "4096", "zfs.special_small_blocks: 4096 — allowed on illumos-2014: 0 (the property came with "
                             "allocation classes in OpenZFS 0.8.0); other values from release zfs-0.8"),
])
def test_special_small_blocks_errors(fake_core, release, value, expected):
    pool = MIRROR if release.startswith("zfs-") and release >= "zfs-0.8" else ""
    assert err(text(pool=pool, zfs=f"special_small_blocks = {value}", release=release)) == expected


@pytest.mark.parametrize("value, shown", [('"-4K"', '"-4K"'), ('"x"', '"x"'), ("true", "true"), ("[]", "[array]")])
def test_special_small_blocks_must_be_a_size(fake_core, value, shown):
    assert err(text(zfs=f"special_small_blocks = {value}")).startswith(f"zfs.special_small_blocks: {shown} — ")


def test_special_small_blocks_without_special_vdevs_is_a_note(sc):
    s = sc(text(pool="", zfs='special_small_blocks = "64K"'))
    assert s.config["special_small_blocks_bytes"] == 65536
    assert s.notes == ('note: zfs.special_small_blocks: "64K" — the pool has no special vdevs (pool.special), so every '
                       "data block stays on the data vdevs",)


@pytest.mark.parametrize("pool, expected", [
    ('special = [{ type = "draid2", disks = 5, device = "samsung-850pro" }]',
     'pool.special[0].type: "draid2" — ziosim models no dRAID special vdev; allowed: disk, mirror, raidz1, raidz2, '
     "raidz3"),
    ('special = [{ type = "mirror", disks = 2, device = "samsung-850pro" }, { type = "draid", disks = 3, '
     'device = "samsung-850pro" }]',
     'pool.special[1].type: "draid" — ziosim models no dRAID special vdev; allowed: disk, mirror, raidz1, raidz2, '
     "raidz3"),
    ('special = { type = "mirror", disks = 2, device = "samsung-850pro" }',
     'pool.special: {table} — allowed: an array of vdev tables such as [{ type = "mirror", disks = 2, '
     'device = "intel-s3700" }]'),
    ('special = [{ type = "mirror", disks = 1, device = "samsung-850pro" }]',
     "pool.special[0].disks: 1 — too few for mirror; allowed: at least 2"),
    ('special = [{ type = "mirror", disks = 2, device = "samsung-850pro", spares = 1 }]',
     "pool.special[0].spares: 1 — applies to draid vdevs only (draid2:<data>d:<spares>s)"),
    ('special = [{ type = "mirror", disks = 2 }]',
     "pool.special[0].device: missing — allowed: a device from [devices] or a preset, or devices (an array of 2, one "
     "per disk)"),
    ('special = [{ type = "mirror", disks = 2, device = "nope" }]',
     'pool.special[0].device: "nope" — allowed: a device from [devices] (wd20efrx) or a preset'),
    ('special = [{ type = "disk", device = "samsung-850pro", names = ["sdl"] }, '
     '{ type = "disk", device = "samsung-850pro", names = ["sdl"] }]',
     'pool.special[1].names[0]: "sdl" — already used; allowed: a name unique in the pool'),
])
def test_special_vdev_errors(fake_core, pool, expected):
    assert err(text(pool=pool)) == expected


def test_an_unknown_key_of_a_special_vdev_is_named_with_a_hint(fake_core):
    with pytest.raises(ScenarioError) as e:
        scenario.loads(text(pool='special = [{ tpye = "mirror", disks = 2, device = "samsung-850pro" }]'))
    assert e.value.line.startswith("pool.special[0].tpye: unknown key — allowed in pool.special[0]: type, disks,")
    assert str(e.value).endswith("hint: did you mean type?")


@pytest.mark.parametrize("release", ["solaris-2009", "freebsd-9", "illumos-2014", "zfs-0.6.5", "zfs-0.7"])
def test_special_vdevs_need_zfs_0_8(fake_core, release):
    assert err(text(release=release)) == (
        "pool.special: 1 vdev — allowed: from release zfs-0.8 (allocation classes came with OpenZFS 0.8.0); this "
        f"scenario's release is {release}")


def test_special_disks_count_in_the_pool_limit(fake_core):
    pool = ('special = [' + ", ".join(['{ type = "raidz3", disks = 255, device = "samsung-850pro" }'] * 16) + "]")
    # 6 data disks, 16 × 255 special, a cache device, a log mirror and a spare: 4090; one more vdev passes 4096.
    pool = pool.replace("]", ', { type = "raidz3", disks = 7, device = "samsung-850pro" }]')
    assert err(text(pool=pool)) == "pool.vdevs: 4097 disks — too many; allowed: at most 4096 in a pool"


def test_fill_is_the_data_vdevs_share(sc):
    assert sc(text()).config["pool"]["allocated_bytes"] == sc(text(pool="")).config["pool"]["allocated_bytes"]


def test_actions_may_name_special_disks(sc):
    acts = ('[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdg"\n'
            '[[action]]\nat = "2s"\ndo = "replace"\nold = "sdg"\nnew = "nvme9"\n'
            '[[action]]\nat = "3s"\ndo = "attach"\ndisk = "sdh"\nnew = "nvme8"\n'
            '[[action]]\nat = "4s"\ndo = "detach"\ndisk = "nvme8"\n')
    c = sc(text(extra='[scenario]\nstop = "10s"\n' + acts)).config
    assert [(a["do"], a.get("disk") or a.get("old")) for a in c["actions"]] == [
        ("fail", "sdg"), ("replace", "sdg"), ("attach", "sdh"), ("detach", "nvme8")]


def test_attach_to_a_special_raidz_disk_is_refused_as_for_a_data_raidz(fake_core):
    pool = 'special = [{ type = "raidz1", disks = 3, device = "samsung-850pro" }]'
    t = text(pool=pool, extra='[scenario]\nstop = "10s"\n[[action]]\nat = "1s"\ndo = "attach"\ndisk = "sdg"\n'
                              'new = "x"\n')
    assert err(t) == ('action[0].disk: "sdg" — sdg is in a raidz1: zpool says "can only attach to mirrors and '
                      'top-level disks"; allowed: a disk or mirror child')


def test_the_schema_takes_special_vdevs_but_no_draid_and_the_property():
    import jsonschema

    from ziosim.scenario import tomllib

    v = jsonschema.Draft202012Validator(scenario.json_schema())
    assert v.is_valid(tomllib.loads(text(zfs='special_small_blocks = "32K"')))
    for bad in ('special = [{ type = "draid2", disks = 5, device = "x" }]',
                'special = [{ type = "mirror", disks = 2, device = "x", data = 1 }]',
                'special = [{ type = "mirror", disks = 1, device = "x" }]',
                'special = [{ type = "mirror", disks = 2 }]'):
        assert not v.is_valid(tomllib.loads(text(pool=bad))), bad


# --------------------------------------------------------------------------- --pool

def test_a_pool_spec_with_a_special_class_becomes_pool_special(fake_core):
    spec = poolspec.parse_pool("raidz2 6x wd20efrx special mirror 2x samsung-850pro log samsung-850pro")
    doc = scenario.tomllib.loads(text())
    poolspec.apply(doc, spec, None)
    c = scenario.from_dict(doc).config
    assert [v["type"] for v in c["pool"]["special"]] == ["mirror"]
    assert [d["name"] for d in c["pool"]["special"][0]["disks"]] == ["sdg", "sdh"]
    assert [d["name"] for d in c["pool"]["cache"]] == []  # the spec is the whole pool: no cache group
    # A spec without a special group drops the scenario's special vdevs, as it does its logs.
    doc = scenario.tomllib.loads(text())
    poolspec.apply(doc, poolspec.parse_pool("mirror 2x wd20efrx"), None)
    assert "special" not in scenario.from_dict(doc).config["pool"]


# --------------------------------------------------------------------------- zpool status

def online(depth, name, state="ONLINE", note=""):
    return {"depth": depth, "name": name, "state": state, "read": 0, "write": 0, "cksum": 0, "note": note}


# A data mirror, a special mirror and a lone special disk, a log mirror and an L2ARC device,
# as the results list them (docs/internals.md): pool.vdevs normal then special, each with
# its class; the special vdevs numbered after the data vdevs, the log vdev after those.
LAYOUT = {
    "pool": {"name": "tank", "alloc_bytes": 0, "size_bytes": 0,
             "vdevs": [{"name": "mirror-0", "type": "mirror", "class": "normal", "leaves": [0, 1]},
                       {"name": "mirror-1", "type": "mirror", "class": "special", "leaves": [2, 3]},
                       {"name": "nvme2", "type": "disk", "class": "special", "leaves": [4]}],
             "cache": [5],
             "log": [{"name": "mirror-3", "type": "mirror", "leaves": [6, 7]}]},
    "leaves": [{"name": n, "size_bytes": 1 << 40} for n in ("sda", "sdb", "nvme0", "nvme1", "nvme2", "nvd0", "sdd",
                                                            "sde")],
}

CONFIG_22 = (
    "  pool: tank\n"
    " state: ONLINE\n"
    "config:\n"
    "\n"
    "\tNAME        STATE     READ WRITE CKSUM\n"
    "\ttank        ONLINE       0     0     0\n"
    "\t  mirror-0  ONLINE       0     0     0\n"
    "\t    sda     ONLINE       0     0     0\n"
    "\t    sdb     ONLINE       0     0     0\n"
    "\tspecial\t\n"
    "\t  mirror-1  ONLINE       0     0     0\n"
    "\t    nvme0   ONLINE       0     0     0\n"
    "\t    nvme1   ONLINE       0     0     0\n"
    "\t  nvme2     ONLINE       0     0     0\n"
    "\tlogs\t\n"
    "\t  mirror-3  ONLINE       0     0     0\n"
    "\t    sdd     ONLINE       0     0     0\n"
    "\t    sde     ONLINE       0     0     0\n"
    "\tcache\n"
    "\t  nvd0      ONLINE       0     0     0\n"
    "\n"
    "errors: No known data errors\n")


@pytest.mark.parametrize("release", ["zfs-0.8", "zfs-2.0", "zfs-2.1", "zfs-2.2", "zfs-2.3"])
def test_status_prints_the_special_class_between_the_data_vdevs_and_the_logs(release):
    assert zpool_status_config(LAYOUT, release) == CONFIG_22


def test_status_without_special_vdevs_prints_no_special_line():
    layout = copy.deepcopy(LAYOUT)
    layout["pool"]["vdevs"] = layout["pool"]["vdevs"][:1]
    assert "special" not in zpool_status_config(layout, "zfs-2.2")


def test_results_whose_vdevs_have_no_class_are_all_data_vdevs():
    """Results of a core before allocation classes carry no `class`: every vdev is a data vdev."""
    layout = copy.deepcopy(LAYOUT)
    for v in layout["pool"]["vdevs"]:
        v.pop("class")
    text = zpool_status_config(layout, "zfs-2.2")
    assert "special" not in text and "\t  nvme2     ONLINE" in text


# The pool of LAYOUT with nvme0 failed: the tree holds the data vdevs, then (from
# special_from on) the special ones; the pool is DEGRADED.
TREE = [online(0, "tank", "DEGRADED"), online(1, "mirror-0"), online(2, "sda"), online(2, "sdb"),
        online(1, "mirror-1", "DEGRADED"), online(2, "nvme0", "UNAVAIL", "cannot open"), online(2, "nvme1"),
        online(1, "nvme2")]
SNAP = {"t_ns": 10 * 10**9, "state": "DEGRADED", "tree": TREE, "special_from": 4,
        "scan": {"func": "none", "state": "none"}, "rebuild": None}


def test_status_of_a_snapshot_splits_its_tree_at_special_from():
    text = zpool_status(SNAP, "zfs-2.2", "tank", E, LAYOUT)
    assert text == (
        "  pool: tank\n"
        " state: DEGRADED\n"
        "status: One or more devices could not be opened.  Sufficient replicas exist for\n"
        "\tthe pool to continue functioning in a degraded state.\n"
        "action: Attach the missing device and online it using 'zpool online'.\n"
        "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-2Q\n"
        "config:\n"
        "\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        DEGRADED     0     0     0\n"
        "\t  mirror-0  ONLINE       0     0     0\n"
        "\t    sda     ONLINE       0     0     0\n"
        "\t    sdb     ONLINE       0     0     0\n"
        "\tspecial\t\n"
        "\t  mirror-1  DEGRADED     0     0     0\n"
        "\t    nvme0   UNAVAIL      0     0     0  cannot open\n"
        "\t    nvme1   ONLINE       0     0     0\n"
        "\t  nvme2     ONLINE       0     0     0\n"
        "\tlogs\t\n"
        "\t  mirror-3  ONLINE       0     0     0\n"
        "\t    sdd     ONLINE       0     0     0\n"
        "\t    sde     ONLINE       0     0     0\n"
        "\tcache\n"
        "\t  nvd0      ONLINE       0     0     0\n"
        "\n"
        "errors: No known data errors\n")
    # The snapshot alone (no layout): its own special rows all the same, no logs or cache.
    alone = zpool_status(SNAP, "zfs-2.2", "tank", E)
    assert "\tspecial\t\n\t  mirror-1  DEGRADED" in alone and "logs" not in alone


def test_a_long_special_disk_name_widens_the_name_column():
    """max_width() walks every child of the root, the special vdevs' too."""
    layout = copy.deepcopy(LAYOUT)
    layout["leaves"][4]["name"] = "nvme-Samsung_SSD_970_EVO_S4EVNF0M1"
    lines = zpool_status_config(layout, "zfs-2.2").splitlines()
    assert lines[4] == "\tNAME                                  STATE     READ WRITE CKSUM"
    assert "\t  nvme-Samsung_SSD_970_EVO_S4EVNF0M1  ONLINE       0     0     0" in lines


# --------------------------------------------------------------------------- zpool status -j

def _tree_with_replacing():
    # nvme0 of the special mirror being replaced by nvme9.
    tree = TREE[:4] + [online(1, "mirror-1", "DEGRADED"), online(2, "replacing-0", "DEGRADED"),
                       online(3, "nvme0", "UNAVAIL", "cannot open"), online(3, "nvme9"), online(2, "nvme1"),
                       online(1, "nvme2")]
    return dict(SNAP, tree=tree)


def test_status_json_puts_the_special_vdevs_under_special_after_vdevs():
    layout = copy.deepcopy(LAYOUT)
    layout["pool"]["vdevs"][1].update(alloc_bytes=7 << 30, size_bytes=1 << 40)
    doc = json.loads(zpool_status_json(_tree_with_replacing(), "zfs-2.3", "tank", E, layout=layout))
    pool = doc["pools"]["tank"]
    # (no status: the only missing disk is inside a replacing vdev, which find_vdev_problem skips)
    assert list(pool) == ["name", "state", "spa_version", "zpl_version", "vdevs", "special", "logs", "l2cache",
                          "error_count"]
    assert list(pool["vdevs"]["tank"]["vdevs"]) == ["mirror-0"]  # no special vdev among the root's children
    special = pool["special"]
    assert list(special) == ["mirror-1", "nvme2"]
    m = special["mirror-1"]
    assert (m["vdev_type"], m["class"], m["alloc_space"], m["total_space"]) == ("mirror", "special", "7G", "1T")
    # fill_vdev_info: a vdev's own bias (a top-level vdev's) or its parent's; deeper, normal.
    rep = m["vdevs"]["replacing-0"]
    assert (rep["vdev_type"], rep["class"]) == ("replacing", "special")
    assert {n: d["class"] for n, d in rep["vdevs"].items()} == {"nvme0": "normal", "nvme9": "normal"}
    assert rep["vdevs"]["nvme0"]["aux"] == "OPEN_FAILED"
    assert m["vdevs"]["nvme1"]["class"] == "special"
    assert (special["nvme2"]["vdev_type"], special["nvme2"]["class"]) == ("disk", "special")
    assert pool["logs"]["mirror-3"]["class"] == "log"


def test_status_json_of_a_run_without_actions_has_the_special_section():
    r = json.loads((FIXTURES / "results_special.json").read_text())
    m = json.loads((FIXTURES / "meta_special.json").read_text())
    pool = json.loads(status_json(r, dict(m, release="zfs-2.3")))["pools"]["tank"]
    assert list(pool) == ["name", "state", "spa_version", "zpl_version", "vdevs", "special", "l2cache", "error_count"]
    assert list(pool["vdevs"]["tank"]["vdevs"]) == ["raidz2-0"]
    top = pool["special"]["mirror-1"]
    assert (top["class"], top["alloc_space"]) == ("special", "96G")
    assert [d["class"] for d in top["vdevs"].values()] == ["special", "special"]


def test_status_json_rebuild_stats_of_a_special_vdev_say_special():
    snap = dict(SNAP, rebuild=[{"vdev": "mirror-1", "state": "active", "start_s": E, "end_s": 0, "scanned": 1 << 30,
                                "issued": 1 << 30, "rebuilt": 1 << 30, "estimate": 4 << 30, "errors": 0,
                                "pass_time_ms": 1000, "pass_scanned": 1 << 30, "pass_issued": 1 << 30,
                                "pass_skipped": 0}])
    doc = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E, layout=LAYOUT))
    stats = doc["pools"]["tank"]["scan_stats"]["rebuild_stats"]["mirror-1"]
    assert (stats["vdev_type"], stats["class"]) == ("mirror", "special")


# --------------------------------------------------------------------------- zpool iostat -v

@pytest.fixture
def results():
    return json.loads((FIXTURES / "results_special.json").read_text())


def test_iostat_prints_the_special_class_after_the_data_vdevs(results):
    lines = zpool_iostat(results, "zfs-2.2", samples=[1]).splitlines()
    names = [ln.split()[0] for ln in lines[3:-1]]
    assert names == ["tank", "raidz2-0", "sda", "sdb", "sdc", "sdd", "sde", "sdf", "special", "mirror-1", "nvme0",
                     "nvme1", "cache", "nvd0"]
    # print_iostat_dashes(cb, 0, "special"): the name padded to the column, a "-" per column.
    assert lines[11] == "special         -      -      -      -      -      -"
    assert lines[12] == "  mirror-1    96G   276G    230     68  3.07M   693K"
    # The pool row's capacity counts the special class (vdev_space_update: every class but log).
    assert lines[3].split()[1:3] == ["10.5T", "11.7T"]


def test_iostat_special_label_spans_every_column_of_l_and_q(results):
    for flags, ncols in ((("-l",), 6 + 11), (("-q",), 6 + 14), (("-l", "-q"), 6 + 11 + 14)):
        label = next(ln for ln in zpool_iostat(results, "zfs-2.2", flags=flags, samples=[1]).splitlines()
                     if ln.startswith("special"))
        assert label == "special   " + "      -" * ncols, flags


def test_iostat_before_2_2_names_the_special_mirror_without_its_id(results):
    text = zpool_iostat(results, "zfs-0.8", samples=[1])
    assert "\nspecial         -      -      -      -      -      -\n  mirror      96G   276G" in text


def test_histograms_give_the_special_class_a_blank_line(results):
    for view in (zpool_iostat_w, zpool_iostat_r):
        text = view(results, "zfs-2.2", verbose=True)
        before = text[:text.index("\nmirror-1 ")]
        assert before.endswith("-\n\n"), view.__name__  # the class's "\n", then the block's own
        assert "special" not in text


def test_a_snapshot_tree_gives_the_same_rows_as_the_layout(results):
    """A run with actions: the rows come from each interval's snapshot, the special ones
    from special_from on, with the same sections as the layout gives."""
    names = ["tank", "raidz2-0", "sda", "sdb", "sdc", "sdd", "sde", "sdf", "mirror-1", "nvme0", "nvme1"]
    tree = [online(0, "tank"), online(1, "raidz2-0")] + [online(2, n) for n in names[2:8]] + [
        online(1, "mirror-1"), online(2, "nvme0"), online(2, "nvme1")]
    with_snaps = copy.deepcopy(results)
    with_snaps["status"] = {"epoch_s": E, "snapshots": [
        {"t_ns": t, "state": "ONLINE", "tree": tree, "special_from": 8, "scan": {"func": "none", "state": "none"}}
        for t in results["series"]["t_ns"]]}
    assert zpool_iostat(with_snaps, "zfs-2.2") == zpool_iostat(results, "zfs-2.2")
    assert [(r.name, r.section) for r in pool_rows(with_snaps, "zfs-2.2", 1)][8:] == [
        ("mirror-1", "special"), ("nvme0", "special"), ("nvme1", "special"), ("nvd0", "cache")]


# --------------------------------------------------------------------------- vdevs.parquet

def test_vdevs_parquet_class_column_is_the_allocation_class(results):
    from ziosim.report.files import vdevs_table

    meta = json.loads((FIXTURES / "meta_special.json").read_text())
    r = copy.deepcopy(results)
    r["pool"]["log"] = [{"name": "nvd0", "type": "disk", "leaves": [8]}]
    n = len(r["series"]["t_ns"])
    r["series"]["tops"] = [{"alloc_bytes": [a] * n, "read_ops": [k] * n, "write_ops": [0] * n, "read_bytes": [0] * n,
                            "write_bytes": [0] * n} for k, a in enumerate((10 << 40, 96 << 30, 1 << 20))]
    rows = vdevs_table(r, meta).to_pylist()
    assert [(row["vdev"], row["class"], row["alloc_bytes"], row["read_ops"]) for row in rows[:3]] == [
        ("raidz2-0", "normal", 10 << 40, 0), ("mirror-1", "special", 96 << 30, 1), ("nvd0", "log", 1 << 20, 2)]
    assert len(rows) == 3 * n


# --------------------------------------------------------------------------- summary

def test_flushes_off_name_the_special_disks_too():
    from ziosim.report.summary import unflushed_volatile_caches

    config = {"tunables": {"zfs_nocacheflush": 1},
              "devices": {"hdd": {"kind": "hdd", "write_cache_enabled": True}, "nvme": {"kind": "ssd", "plp": False}},
              "pool": {"vdevs": [{"disks": [{"name": "sda", "device": "hdd"}]}],
                       "special": [{"disks": [{"name": "nvme0", "device": "nvme"}]}]}}
    assert unflushed_volatile_caches(config)["leaves"] == {"hdd": ["sda"], "nvme": ["nvme0"]}
    # zil_nocacheflush: the ZIL's own flushes; log blocks never go to the special class, but
    # a small INDIRECT data block may, so the special disks count only with special_small_blocks.
    zil = dict(config, tunables={"zil_nocacheflush": 1})
    assert unflushed_volatile_caches(zil)["leaves"] == {"hdd": ["sda"]}
    zil["special_small_blocks_bytes"] = 32768
    assert unflushed_volatile_caches(zil)["leaves"] == {"hdd": ["sda"], "nvme": ["nvme0"]}


# --------------------------------------------------------------------------- import

@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def _build(inputs, presets, **opts):
    from ziosim.importers import scenario as isc

    imp = isc.read_inputs(inputs)
    return isc.build(imp, isc.Options(**opts), presets)


def _fixture(*names):
    return [(f"tests/python/fixtures/import/{n}", (FIX / n).read_text()) for n in names]


@pytest.mark.needs_core
def test_import_of_a_special_section_makes_pool_special(presets):
    t = _build(_fixture("zfs-2.2-classes.txt", "zfs-2.2-list-v.txt"), presets)
    c = scenario.loads(t, path="x.toml").config
    pool = c["pool"]
    assert [(v["type"], [d["name"] for d in v["disks"]]) for v in pool["special"]] == [
        ("mirror", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part3"])]
    dev = pool["special"][0]["disks"][0]["device"]
    assert dev == "special" and c["devices"]["special"]["capacity_bytes"] == 233 << 30  # 233G, zpool list -v
    assert c["devices"]["special"]["kind"] == "ssd"
    assert "left out: special" not in t
    assert ("#   vdev names: ZFS numbers top-level vdevs in the order they were added, ziosim the data vdevs, then the "
            "special, then the log vdevs, so the simulated zpool status names them otherwise: special mirror-2 is "
            "mirror-1; log mirror-1 is mirror-2") in t.splitlines()
    assert any(ln.startswith("#   special_small_blocks 0: ZFS's default") for ln in t.splitlines())
    assert "special_small_blocks" not in c
    # zpool list's ALLOC of the data vdev alone: the special class's 112G is not pool.allocated.
    assert pool["allocated_bytes"] < (10.5 * (1 << 40))


@pytest.mark.needs_core
def test_import_special_device_option_and_without_zpool_list(presets):
    t = _build(_fixture("zfs-2.2-classes.txt"), presets, special_device="samsung-850pro")
    c = scenario.loads(t, path="x.toml").config
    assert c["devices"]["special"] == presets["samsung-850pro"]["spec"]  # no size in the text: the preset's
    assert "#   special vdevs' device model samsung-850pro: from --special-device" in t.splitlines()


@pytest.mark.needs_core
def test_import_of_zpool_status_json_makes_pool_special(presets):
    t = _build(_fixture("zfs-2.3-json-scrub.txt"), presets)
    c = scenario.loads(t, path="x.toml").config
    assert [len(v["disks"]) for v in c["pool"]["special"]] == [2]
    assert c["devices"]["special"]["capacity_bytes"] > 0  # phys_space


@pytest.mark.needs_core
def test_import_refuses_a_release_before_allocation_classes(presets):
    with pytest.raises(ScenarioError) as e:
        _build([("status.txt", (FIX / "zfs-2.2-classes.txt").read_text())], presets, release="zfs-0.7")
    assert str(e.value) == ('--release: "zfs-0.7" — allowed: zfs-0.8, zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3, as '
                            "status.txt line 18 shows the special vdev mirror-2 and allocation classes came with "
                            "OpenZFS 0.8.0")


def _classes_text(**subst):
    t = (FIX / "zfs-2.2-classes.txt").read_text()
    for a, b in subst.items():
        t = t.replace(a, b)
    return t


def test_a_special_section_keeps_the_release_guess_to_0_8_and_later():
    from ziosim.importers import split_sections, zpool_status

    # "scan: none requested" is printed by freebsd-9 … zfs-0.8; the special section says 0.8.
    t = _classes_text()
    head, rest = t.split("config:", 1)
    t = head.split("  scan:")[0] + "  scan: none requested\nconfig:" + rest
    (sec,) = [s for s in split_sections("s.txt", t) if s.kind == "status"]
    (st,) = zpool_status.parse(sec)
    g = zpool_status.guess_release(st)
    assert g.candidates == ("zfs-0.8",) and g.release == "zfs-0.8"
    assert "a special vdev (mirror-2, line 16): zfs-0.8 and later" in g.reasons


@pytest.mark.needs_core
def test_import_leaves_dedup_vdevs_out(presets):
    t = _build([("s.txt", _classes_text(**{"\tspecial\n": "\tdedup\n"}))], presets)
    assert ("#   left out: dedup vdevs mirror-2 (nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3, "
            "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part3): ziosim models no deduplication, so no dedup table (DDT), "
            "the only blocks a dedup vdev holds") in t.splitlines()
    assert "pool.special" not in t


@pytest.mark.needs_core
def test_import_a_failed_special_disk_fails_in_the_scenario(presets):
    t = _classes_text(**{"nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3  ONLINE       0     0     0":
                         "nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3  FAULTED      0     0     0  too many errors",
                         "  mirror-2                                    ONLINE":
                         "  mirror-2                                    DEGRADED",
                         " state: ONLINE": " state: DEGRADED"})
    c = scenario.loads(_build([("s.txt", t)], presets), path="x.toml").config
    assert ("fail", "nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3") in [(a["do"], a.get("disk")) for a in c["actions"]]


# --------------------------------------------------------------------------- a real run
# These need a core that knows pool.special (the contract of docs/internals.md).

SPECIAL_RUN = f"""
[scenario]
stop = "12s"
report_interval = "1s"
[zfs]
release = "{{release}}"
special_small_blocks = "16K"
[pool]
allocated = "2G"
recordsize = "16K"
vdevs = [{{ type = "mirror", disks = 2, device = "{HDD}" }}]
special = [{{ type = "mirror", disks = 2, device = "intel-s3700" }}]
cache = {{ device = "samsung-850pro" }}
log = [{{ device = "intel-s3700" }}]
[[workload]]
kind = "random-write"
threads = 4
sizes = [["8K", 1.0]]
"""


@pytest.mark.needs_core
def test_a_run_with_a_special_mirror():
    from ziosim import runner

    res = runner.run(scenario.loads(SPECIAL_RUN.replace("{release}", "zfs-2.2"), path="special.toml"))
    pool = res["pool"]
    assert [(v["name"], v["class"]) for v in pool["vdevs"]] == [("mirror-0", "normal"), ("mirror-1", "special")]
    assert [leaf["name"] for leaf in res["leaves"]][:4] == ["sda", "sdb", "sdc", "sdd"]
    assert [res["leaves"][i]["name"] for i in pool["vdevs"][1]["leaves"]] == ["sdc", "sdd"]
    assert [v["name"] for v in pool["log"]] == ["sdf"]  # names: data, special, cache (sde), log (sdf)
    assert len(res["series"]["tops"]) == 3  # normal, special, log
    assert pool["vdevs"][1]["alloc_bytes"] > 0  # metadata and the 8K blocks
    # Two txgs synced (zfs_txg_timeout 5 s): their metadata and the 16K records the 8K
    # writes dirtied (special_small_blocks = 16K) went to the special mirror, nothing to
    # the data mirror: every block of the run is small or metadata.
    written = sum(res["leaves"][i]["classes"].get("async_write", {}).get("bytes", 0)
                  for i in pool["vdevs"][1]["leaves"])
    data_written = sum(res["leaves"][i]["classes"].get("async_write", {}).get("bytes", 0)
                       for i in pool["vdevs"][0]["leaves"])
    assert written > 0 and data_written == 0, (written, data_written)
    from ziosim.report.status import zpool_status_config

    text = zpool_status_config(res, "zfs-2.2")
    assert "\tspecial\t\n\t  mirror-1  ONLINE       0     0     0\n\t    sdc     ONLINE" in text
    assert text.index("\tspecial\t") < text.index("\tlogs\t") < text.index("\tcache")
    iostat = zpool_iostat(res, "zfs-2.2")
    assert "\nspecial   " in iostat and iostat.index("\nspecial ") < iostat.index("\nlogs ")


@pytest.mark.needs_core
def test_a_failed_special_disk_is_replaced_and_resilvered(tmp_path):
    from ziosim import runner
    from ziosim.report.files import write_outputs

    import pyarrow.parquet as pq

    acts = ('[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdc"\n'
            '[[action]]\nat = "2s"\ndo = "replace"\nold = "sdc"\nnew = "nvme9"\n')
    t = SPECIAL_RUN.replace("{release}", "zfs-2.3").replace('stop = "12s"', 'stop = "scan-done or 10m"') + acts
    sc_ = scenario.loads(t, path="special.toml")
    res = runner.run(sc_)
    snaps = res["status"]["snapshots"]
    assert all(s["special_from"] == 4 for s in snaps)  # tank, mirror-0, sda, sdb
    during = next(s for s in snaps if any(r["name"].startswith("replacing") for r in s["tree"]))
    k = during["special_from"]
    assert during["tree"][k]["name"] == "mirror-1"
    assert any(r["name"] == "nvme9" for r in during["tree"][k:])
    text = zpool_status(during, "zfs-2.3", "tank", res["status"]["epoch_s"], res)
    assert "\tspecial\t\n\t  mirror-1" in text and "replacing-0" in text.split("\tspecial\t")[1]
    doc = json.loads(zpool_status_json(during, "zfs-2.3", "tank", res["status"]["epoch_s"], layout=res))
    assert "mirror-1" in doc["pools"]["tank"]["special"]
    assert res["scan"]["func"] == "resilver" and res["scan"]["state"] == "finished"
    meta = {"release": "zfs-2.3", "name": "s", "seed": 0, "version": "t", "scenario_hash": "h", "config": sc_.config}
    write_outputs(tmp_path / "out", res, meta, plots=False)
    rows = pq.read_table(tmp_path / "out" / "vdevs.parquet").to_pylist()
    assert [r["class"] for r in rows[:3]] == ["normal", "special", "log"]


@pytest.mark.needs_core
def test_cli_run_with_a_special_class_on_the_command_line(tmp_path):
    from test_cli_inputs import invoke

    from conftest import SCENARIOS

    r = invoke("run", SCENARIOS / "default.toml", "--pool", f"mirror 2x {HDD} special mirror 2x intel-s3700",
               "--fill", "5%", "--stop", "2s", "-q", "--views", "status", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    assert "\tspecial\t\n\t  mirror-1" in r.stdout


@pytest.mark.needs_core
def test_import_leaves_a_special_draid_out(presets):
    t = _classes_text(**{"  mirror-2                                    ONLINE":
                         "  draid1:1d:2c:0s-2                           ONLINE"})
    out = _build([("s.txt", t)], presets)
    assert ("#   left out: special vdev draid1:1d:2c:0s-2 (nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3, "
            "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part3): a dRAID, which ziosim does not model as a special vdev; the "
            "metadata and small blocks it holds are simulated on the other special vdevs, or on the data vdevs "
            "without any") in out.splitlines()
    assert "pool.special" not in out and "[devices.special]" not in out


@pytest.mark.needs_core
def test_workload_from_iostat_counts_the_data_vdevs_reads_not_the_special_class(presets):
    """ziosim's own zpool status and zpool iostat -v of a mirror pool with a special mirror
    under a random reader whose ARC lacks indirect blocks: the pool row adds the special
    vdevs' metadata reads to the data vdevs'; the imported workload (special_small_blocks
    assumed 0, so the special class holds metadata only) reads at the data vdevs' rate."""
    from ziosim import runner
    from ziosim.importers import scenario as isc
    from ziosim.report import render_text

    sc = scenario.loads(f"""
[scenario]
stop = "20s"
report_interval = "10s"
[zfs]
release = "zfs-2.2"
[pool]
fill = 0.02
recordsize = "16K"
vdevs = [{{ type = "mirror", disks = 2, device = "{HDD}" }}]
special = [{{ type = "mirror", disks = 2, device = "intel-s3700" }}]
[[workload]]
kind = "random-read"
rate = 50
sizes = [["4K", 1.0]]
arc_size = "32M"
""", path="r.toml")
    text = render_text(runner.run(sc), runner.meta(sc), views=("status", "iostat"))
    text = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("# "))
    last = text[text.rindex("pool  "):]
    rows = {ln.split()[0]: ln.split() for ln in last.splitlines() if ln.split()}
    pool_reads, data_reads = int(rows["tank"][3]), int(rows["mirror-0"][3])
    # The indirect blocks the small ARC lacks are read from the special mirror first.
    assert pool_reads > data_reads > 0
    imp = isc.read_inputs([("run.txt", text)])
    out = isc.build(imp, isc.Options(workload_from_iostat=True), presets)
    w = scenario.loads(out, path="x.toml").config["workloads"][0]
    assert w["rate_per_s"] == data_reads, out
    assert "the data vdevs' rows, without the special class's" in out

import json
import re

import pytest

from ziosim import ScenarioError, scenario
from ziosim.units import parse_size

from conftest import BAD, SCENARIOS

pytestmark = pytest.mark.usefixtures("fake_core")

BUNDLED = sorted(p.name for p in SCENARIOS.glob("*.toml"))

RUN_CONFIG_KEYS = {
    "name",
    "seed",
    "release",
    "hz",
    "ram_bytes",
    "stop_ns",
    "report_interval_ns",
    "tunables",
    "devices",
    "links",
    "pool",
    "workloads",
    "limits",
    "actions",
    "stop_on_scan_done",
    "stop_after_scan_done_ns",
    "epoch_s",
}
WORKLOAD_KEYS = {
    "name",
    "kind",
    "sizes",
    "rate_per_s",
    "threads",
    "think_ns",
    "region_offset_bytes",
    "region_length_bytes",
    "arc_hit_ratio",
    "arc_hit_ns",
    "l2arc_hit_ratio",
    "start_ns",
    "stop_ns",
}


def test_the_bundled_scenarios_exist():
    assert BUNDLED == [
        "default.toml",
        "mirror-ssd-l2arc.toml",
        "one-disk-qd1.toml",
        "one-disk-qd32.toml",
        "one-disk-seq.toml",
        "port-multiplier.toml",
        "rebuild-mirror-zfs-2.1.toml",
        "resilver-raidz2-legacy.toml",
        "resilver-straggler.toml",
    ]


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenarios_normalise_to_the_internals_shape(name):
    s = scenario.load(SCENARIOS / name)
    c = s.config
    assert set(c) == RUN_CONFIG_KEYS
    assert set(c["pool"]) - {"layout"} == {"name", "ashift", "recordsize_bytes", "allocated_bytes", "vdevs", "cache"}
    assert set(c["limits"]) == {"events_max", "time_ns_max"}
    for v in c["pool"]["vdevs"]:
        assert set(v) == {"type", "disks"}
        for d in v["disks"]:
            assert set(d) == {"name", "device", "link"}
            assert d["device"] in c["devices"]
    for w in c["workloads"]:
        assert set(w) == WORKLOAD_KEYS
        assert (w["rate_per_s"] is None) != (w["threads"] is None)
        assert abs(sum(wt for _, wt in w["sizes"]) - 1.0) < 1e-12
    for spec in c["devices"].values():
        assert spec["kind"] in ("hdd", "ssd")
    assert re.fullmatch(r"[0-9a-f]{16}", s.hash)
    json.loads(scenario.canonical_json(c))  # JSON-clean: no NaN, no tuples


def test_default_scenario_values():
    c = scenario.load(SCENARIOS / "default.toml").config
    assert (c["name"], c["seed"], c["release"], c["hz"]) == ("default", 0, "zfs-2.2", 250)
    assert c["ram_bytes"] == 16 << 30
    assert (c["stop_ns"], c["report_interval_ns"]) == (240 * 10**9, 30 * 10**9)
    assert c["actions"] == [{"at_ns": 60 * 10**9, "do": "scrub"}]
    (v,) = c["pool"]["vdevs"]
    assert v["type"] == "raidz2"
    assert [d["name"] for d in v["disks"]] == ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    cap = c["devices"]["hdd"]["capacity_bytes"]
    usable = 4 * cap
    assert c["pool"]["allocated_bytes"] == int(usable * 0.1) // 4096 * 4096
    (w,) = c["workloads"]
    assert w["kind"] == "random-read" and w["threads"] == 4
    assert w["sizes"] == [[4096, 0.5], [16384, 0.25], [131072, 0.25]]
    assert c["tunables"] == {}


def test_qd32_overrides_two_tunables():
    c = scenario.load(SCENARIOS / "one-disk-qd32.toml").config
    assert c["tunables"] == {"zfs_vdev_sync_read_max_active": 32, "zfs_vdev_sync_read_min_active": 32}
    assert c["workloads"][0]["threads"] == 32


def test_one_disk_uses_a_preset_directly():
    c = scenario.load(SCENARIOS / "one-disk-qd1.toml").config
    assert list(c["devices"]) == ["hdd-7200-sata-2014"]
    assert c["pool"]["vdevs"] == [
        {"type": "disk", "disks": [{"name": "sda", "device": "hdd-7200-sata-2014", "link": None}]}
    ]
    assert c["pool"]["recordsize_bytes"] == 4096
    assert c["pool"]["allocated_bytes"] == int(c["devices"]["hdd-7200-sata-2014"]["capacity_bytes"] * 0.95) // 4096 * 4096
    w = c["workloads"][0]
    assert (w["sizes"], w["threads"], w["arc_hit_ratio"], w["region_length_bytes"]) == ([[4096, 1.0]], 1, 0.0, 0)


def test_mirror_l2arc_scenario():
    c = scenario.load(SCENARIOS / "mirror-ssd-l2arc.toml").config
    assert [v["type"] for v in c["pool"]["vdevs"]] == ["mirror", "mirror"]
    assert [d["name"] for v in c["pool"]["vdevs"] for d in v["disks"]] == ["sda", "sdb", "sdc", "sdd"]
    assert c["pool"]["cache"] == [{"name": "sde", "device": "ssd", "link": None}]
    w = c["workloads"][0]
    assert (w["rate_per_s"], w["threads"], w["arc_hit_ratio"], w["l2arc_hit_ratio"]) == (200.0, None, 0.8, 0.5)
    assert c["pool"]["allocated_bytes"] == round(1.2 * (1 << 40)) // 4096 * 4096


def test_hash_is_of_the_canonical_config_and_follows_the_seed():
    a = scenario.load(SCENARIOS / "default.toml")
    b = scenario.load(SCENARIOS / "default.toml")
    c = scenario.load(SCENARIOS / "default.toml", seed=7)
    import hashlib

    assert a.hash == b.hash == hashlib.sha256(scenario.canonical_json(a.config).encode()).hexdigest()[:16]
    assert c.hash != a.hash and c.config["seed"] == 7
    assert scenario.load(SCENARIOS / "default.toml", stop="5s").config["stop_ns"] == 5 * 10**9


# --- every malformed example gives exactly this message ----------------------------

BAD_EXPECTED = {
    "unknown-key.toml": (
        "pool.vdev: unknown key — allowed in pool: name, ashift, recordsize, allocated, fill, vdevs, special, cache, "
        "log, spares, layout, failmode\n"
        "hint: did you mean vdevs?"
    ),
    "negative-size.toml": (
        'pool.allocated: "-1T" — a size cannot be negative; allowed: a byte count (4096) or a number with '
        'K, M, G, T, P or E (base 1024), e.g. "128K", "2.84T"'
    ),
    "raidz2-two-disks.toml": "pool.vdevs[0].disks: 2 — too few for raidz2; allowed: at least 3",
    "unknown-tunable.toml": (
        "zfs.tunables.zfs_vdev_scrub_max_activ: unknown tunable — allowed: the names "
        "`ziosim tunables --release zfs-2.2` lists\n"
        "hint: did you mean zfs_vdev_scrub_max_active?"
    ),
    "tunable-not-in-release.toml": (
        "zfs.tunables.zfs_vdev_nia_credit: not in release zfs-2.0 — releases that have it: zfs-2.1, zfs-2.2, zfs-2.3"
    ),
    "bad-release.toml": (
        'zfs.release: "openzfs-2.2" — allowed: solaris-2009, freebsd-9, illumos-2012, illumos-2014, '
        "zfs-0.6.5, zfs-0.7, zfs-0.8, zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3\n"
        "hint: did you mean zfs-2.2?"
    ),
    "bad-duration.toml": (
        'scenario.stop: "10 minutes" — allowed: a duration with a unit (ns, us, ms, s, m, h, d), '
        'e.g. "500ms", "60s", "2h40m"'
    ),
}


def test_every_bad_example_has_an_expected_message():
    assert sorted(BAD_EXPECTED) == sorted(p.name for p in BAD.glob("*.toml"))


@pytest.mark.parametrize("name", sorted(BAD_EXPECTED))
def test_bad_examples(name):
    with pytest.raises(ScenarioError) as e:
        scenario.load(BAD / name)
    assert str(e.value) == BAD_EXPECTED[name]
    assert "\n" not in e.value.line


# --- inline cases ----------------------------------------------------------------

HEAD = """
[zfs]
release = "zfs-2.2"
"""
POOL = """
[pool]
fill = 0.5
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]
"""


def err(text):
    with pytest.raises(ScenarioError) as e:
        scenario.loads(text)
    return str(e.value)


def ok(text):
    return scenario.loads(text).config


def wl(body, pool=POOL, head=HEAD):
    return head + pool + "\n[[workload]]\n" + body


@pytest.mark.parametrize("stop", ["scan-done", "scan-done or 48h"])
def test_scan_done_needs_a_scan_action(stop):
    msg = err(f'[scenario]\nstop = "{stop}"\n' + HEAD + POOL)
    assert msg == f'scenario.stop: "{stop}" — allowed only with a scrub, replace, attach or online [[action]]'


def test_scan_done_with_a_scrub_sets_the_stop_flag():
    c = ok('[scenario]\nstop = "scan-done or 48h"\n' + HEAD + POOL + '[[action]]\nat = "5s"\ndo = "scrub"\n')
    assert c["stop_on_scan_done"] is True
    assert c["stop_ns"] == 48 * 3600 * 10**9
    assert c["actions"] == [{"at_ns": 5 * 10**9, "do": "scrub"}]


def test_scan_done_plus_a_duration_keeps_an_after_window():
    c = ok('[scenario]\nstop = "scan-done + 20m or 48h"\n' + HEAD + POOL + '[[action]]\nat = "5s"\ndo = "scrub"\n')
    assert c["stop_on_scan_done"] is True
    assert c["stop_after_scan_done_ns"] == 20 * 60 * 10**9
    assert c["stop_ns"] == 48 * 3600 * 10**9
    plain = ok('[scenario]\nstop = "scan-done"\n' + HEAD + POOL + '[[action]]\nat = "5s"\ndo = "scrub"\n')
    assert plain["stop_after_scan_done_ns"] == 0
    assert err('[scenario]\nstop = "scan-done + later"\n' + HEAD + POOL).startswith(
        'scenario.stop: "later" — allowed: a duration'
    )


def test_scan_done_syntax_is_still_checked():
    assert err('[scenario]\nstop = "scan-done or soon"\n' + HEAD + POOL).startswith(
        'scenario.stop: "soon" — allowed: a duration'
    )


def test_a_trace_workload_needs_its_trace_file():
    # Once a "later" kind; now supported (tests/python/test_trace.py), and its file required.
    assert err(wl('kind = "trace"\nthreads = 1\n')) == "workload[0].trace: missing — allowed: the path of a trace file"


def test_unknown_workload_kind():
    msg = err(wl('kind = "randread"\nthreads = 1\n'))
    assert msg.startswith('workload[0].kind: "randread" — allowed: random-read, random-write, seq-read, seq-write')


def test_actions_are_checked():
    assert err(HEAD + POOL + '[[action]]\nat = "0s"\ndo = "scrubb"\n').startswith('action[0].do: "scrubb" — allowed:')
    assert err(HEAD + POOL + '[[action]]\ndo = "fail"\ndisk = "sdz"\n').startswith('action[0].disk: "sdz" — allowed: one of')
    assert err(HEAD + POOL + '[[action]]\nat = "5s"\ndo = "scrub"\n[[action]]\nat = "1s"\ndo = "cancel"\n').startswith(
        'action[1].at: "1s" — allowed: actions in time order'
    )
    assert err(HEAD + POOL + '[[action]]\ndo = "scrub"\ndisk = "sda"\n').startswith("action[0].disk: unknown key")


def test_unknown_top_level_key_hints_nearest():
    msg = err(HEAD + POOL + '[[workloads]]\nkind = "random-read"\nthreads = 1\n')
    assert msg.splitlines() == [
        "workloads: unknown key — allowed at the top level: scenario, zfs, devices, links, pool, workload, action",
        "hint: did you mean workload?",
    ]


def test_single_workload_table_is_explained():
    assert "write [[workload]]" in err(HEAD + POOL + '[workload]\nkind = "random-read"\nthreads = 1\n')


def test_tunable_out_of_range():
    msg = err('[zfs]\nrelease = "zfs-2.2"\ntunables = { zfs_vdev_scrub_max_active = 0 }\n' + POOL)
    assert msg == "zfs.tunables.zfs_vdev_scrub_max_active: 0 — out of range; allowed: 1..1000 count"


def test_byte_tunables_take_sizes():
    c = ok('[zfs]\nrelease = "zfs-2.2"\ntunables = { zfs_vdev_aggregation_limit = "1M" }\n' + POOL)
    assert c["tunables"] == {"zfs_vdev_aggregation_limit": 1 << 20}


def test_tunable_must_be_an_integer():
    msg = err('[zfs]\nrelease = "zfs-2.2"\ntunables = { zfs_vdev_scrub_max_active = "3" }\n' + POOL)
    assert msg == 'zfs.tunables.zfs_vdev_scrub_max_active: "3" — allowed: an integer 1..1000 count'


@pytest.mark.parametrize(
    "release, hz", [("illumos-2014", 100), ("solaris-2009", 100), ("freebsd-9", 1000), ("zfs-0.7", 250)]
)
def test_hz_defaults_per_platform(release, hz):
    assert ok(f'[zfs]\nrelease = "{release}"\n' + POOL)["hz"] == hz


def test_missing_release():
    assert err("[zfs]\n" + POOL).startswith("zfs.release: missing — allowed: solaris-2009, ")


def test_l2arc_needs_a_cache():
    msg = err(wl('kind = "random-read"\nthreads = 1\nl2arc_hit = 0.5\n'))
    assert msg == "workload[0].l2arc_hit: 0.5 — needs an L2ARC; add pool.cache or set 0"


@pytest.mark.parametrize("field, value", [("arc_hit", "1.5"), ("arc_hit", "-0.1"), ("l2arc_hit", '"half"')])
def test_ratios_are_0_to_1(field, value):
    assert err(wl(f'kind = "random-read"\nthreads = 1\n{field} = {value}\n')).startswith(f"workload[0].{field}: ")


def test_rate_xor_threads():
    assert err(wl('kind = "random-read"\nthreads = 1\nrate = 5\n')) == (
        "workload[0].threads: 1 — give rate (open loop) or threads (closed loop), not both"
    )
    assert err(wl('kind = "random-read"\n')) == (
        "workload[0].rate: missing — allowed: rate (operations per second, open loop) or threads (closed loop)"
    )


def test_workload_defaults():
    (w,) = ok(wl('kind = "seq-write"\nrate = 10\n'))["workloads"]
    assert w["name"] == "seq-write"
    assert w["sizes"] == [[131072, 1.0]]  # the pool's recordsize
    assert (w["rate_per_s"], w["threads"], w["think_ns"], w["arc_hit_ns"], w["start_ns"], w["stop_ns"]) == (
        10.0,
        None,
        0,
        2000,
        0,
        None,
    )


def test_workload_region_and_times():
    (w,) = ok(
        wl(
            'kind = "random-read"\nthreads = 2\nthink = "1ms"\nregion = { offset = "1G", length = "10G" }\n'
            'start = "5s"\nstop = "50s"\n'
        )
    )["workloads"]
    assert (w["region_offset_bytes"], w["region_length_bytes"]) == (1 << 30, 10 << 30)
    assert (w["think_ns"], w["start_ns"], w["stop_ns"]) == (1_000_000, 5 * 10**9, 50 * 10**9)


def test_region_must_lie_within_allocated():
    msg = err(wl('kind = "random-read"\nthreads = 1\nregion = { offset = 0, length = "900G" }\n'))
    assert msg.startswith(
        'workload[0].region.length: "900G" — runs past the allocated space; allowed: offset + length ≤ '
    )


def test_duplicate_workload_names():
    body = 'kind = "random-read"\nthreads = 1\n\n[[workload]]\nkind = "random-read"\nthreads = 2\n'
    assert err(wl(body)) == 'workload[1].name: "random-read" — already used by workload[0]; allowed: a unique name'


def test_io_size_bounds():
    assert err(wl('kind = "random-read"\nthreads = 1\nsize = "100"\n')) == (
        'workload[0].size: "100" — allowed: a multiple of 512 from 512 to 16M'
    )
    assert err(wl('kind = "random-read"\nthreads = 1\nsizes = [["4K", 0]]\n')) == (
        "workload[0].sizes[0][1]: 0 — allowed: a weight greater than 0"
    )


@pytest.mark.parametrize(
    "vtype, disks, expected",
    [
        ("mirror", 1, "pool.vdevs[0].disks: 1 — too few for mirror; allowed: at least 2"),
        ("raidz1", 1, "pool.vdevs[0].disks: 1 — too few for raidz1; allowed: at least 2"),
        ("raidz3", 3, "pool.vdevs[0].disks: 3 — too few for raidz3; allowed: at least 4"),
        ("disk", 2, "pool.vdevs[0].disks: 2 — a disk vdev has exactly one; allowed: 1"),
    ],
)
def test_vdev_minimum_disks(vtype, disks, expected):
    pool = f'[pool]\nfill = 0.5\nvdevs = [{{ type = "{vtype}", disks = {disks}, device = "wd20efrx" }}]\n'
    assert err(HEAD + pool) == expected


def test_raidz_alias_and_usable_capacity():
    pool = '[pool]\nfill = 1.0\nashift = 9\nvdevs = [{ type = "raidz", disks = 3, device = "wd20efrx" }]\n'
    c = ok(HEAD + pool)
    assert c["pool"]["vdevs"][0]["type"] == "raidz1"
    assert c["pool"]["allocated_bytes"] == 2 * c["devices"]["wd20efrx"]["capacity_bytes"] // 512 * 512


def test_draid_defaults_width_and_capacity():
    # zpool create tank draid2 <12 disks>: 8 data per group (MIN(12 − 2, 8)), no spares.
    pool = '[pool]\nfill = 1.0\nvdevs = [{ type = "draid2", disks = 12, device = "wd20efrx" }]\n'
    c = ok(HEAD + pool)
    v = c["pool"]["vdevs"][0]
    assert (v["type"], v["data"], v["spares"], len(v["disks"])) == ("draid2", 8, 0, 12)
    cap = c["devices"]["wd20efrx"]["capacity_bytes"]
    assert c["pool"]["allocated_bytes"] <= 12 * cap * 8 // 10
    assert ok(HEAD + pool.replace("draid2", "draid"))["pool"]["vdevs"][0]["type"] == "draid1"
    # Other vdev types carry no dRAID keys (their run config is as before).
    assert "data" not in ok(HEAD + '[pool]\nfill = 0.5\nvdevs = [{ type = "raidz2", disks = 6, device = "wd20efrx" }]\n'
                            )["pool"]["vdevs"][0]


@pytest.mark.parametrize(
    "vdev, expected",
    [
        ('type = "draid2", disks = 12, data = 11', "pool.vdevs[0].data: 11 — out of range; allowed: 1..10"),
        ('type = "draid1", disks = 5, spares = 101', "pool.vdevs[0].spares: 101 — out of range; allowed: 0..100"),
        ('type = "draid3", disks = 4, spares = 2',
         "pool.vdevs[0].spares: 2 — with 3 parity leaves no disk of 4 for data; allowed: at most 0"),
        ('type = "raidz2", disks = 6, data = 4', "pool.vdevs[0].data: 4 — applies to draid vdevs only (draid2:<data>d:<spares>s)"),
        ('type = "draid2", disks = 2', "pool.vdevs[0].disks: 2 — too few for draid2; allowed: at least 3"),
    ],
)
def test_draid_errors(vdev, expected):
    pool = f'[pool]\nfill = 0.5\nvdevs = [{{ {vdev}, device = "wd20efrx" }}]\n'
    assert err(HEAD + pool) == expected


def test_draid_needs_zfs_2_1():
    pool = '[pool]\nfill = 0.5\nvdevs = [{ type = "draid2", disks = 8, device = "wd20efrx" }]\n'
    assert err(HEAD.replace("zfs-2.2", "zfs-2.0") + pool) == (
        'pool.vdevs[0].type: "draid2" — allowed: from release zfs-2.1 (dRAID came with OpenZFS 2.1.0); '
        "this scenario's release is zfs-2.0")


def test_draid_disk_is_not_attached_to_but_replaced_with_s():
    base = ('[pool]\nfill = 0.1\nvdevs = [{ type = "draid2", disks = 8, device = "wd20efrx" }]\n'
            '[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdb"\n')
    assert err(HEAD + base + '[[action]]\nat = "2s"\ndo = "attach"\ndisk = "sdb"\nnew = "sdz"\n') == (
        'action[1].disk: "sdb" — sdb is in a draid2: zpool says "can only attach to mirrors and top-level disks"; '
        "allowed: a disk or mirror child")
    c = ok(HEAD + base + '[[action]]\nat = "2s"\ndo = "replace"\nold = "sdb"\nnew = "sdz"\n')
    assert c["actions"][1]["new"] == "sdz"


def test_unknown_vdev_type_hints():
    pool = '[pool]\nfill = 0.5\nvdevs = [{ type = "raidz4", disks = 5, device = "wd20efrx" }]\n'
    assert err(HEAD + pool).startswith('pool.vdevs[0].type: "raidz4" — allowed: disk, mirror, raidz1, raidz2, raidz3')


def test_allocated_xor_fill_and_bounds():
    vd = 'vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]\n'
    assert err(HEAD + "[pool]\n" + vd).startswith("pool.allocated: missing")
    assert (
        err(HEAD + '[pool]\nallocated = "1G"\nfill = 0.5\n' + vd) == "pool.fill: 0.5 — give allocated or fill, not both"
    )
    assert err(HEAD + '[pool]\nallocated = "2T"\n' + vd).startswith(
        'pool.allocated: "2T" — allowed: at least one sector (4096 bytes), at most the usable capacity ('
    )
    assert ok(HEAD + "[pool]\nallocated = 10000\n" + vd)["pool"]["allocated_bytes"] == 8192
    assert (
        err(HEAD + "[pool]\nfill = 0\n" + vd)
        == "pool.fill: 0 — out of range; allowed: a number greater than 0, at most 1"
    )


@pytest.mark.parametrize(
    "key, value, msg",
    [
        ("ashift", "8", "pool.ashift: 8 — out of range; allowed: 9..16"),
        ("ashift", "17", "pool.ashift: 17 — out of range; allowed: 9..16"),
        ("recordsize", '"96K"', 'pool.recordsize: "96K" — allowed: a power of two from 512 to 16M'),
        ("recordsize", '"32M"', 'pool.recordsize: "32M" — allowed: a power of two from 512 to 16M'),
        ("layout", '"old"', 'pool.layout: "old" — allowed: "fresh", "aged" or a table'),
        ("layout", "0.5", 'pool.layout: 0.5 — allowed: "fresh", "aged" or a table such as '
         '{ fragmentation = 0.4, files = [["16K", 0.2], ["1M", 0.8]], compression = 1.5 }'),
        ("layout", "{ fragmentation = 1.5 }", "pool.layout.fragmentation: 1.5 — out of range; allowed: a number 0..1"),
        ("layout", "{ compression = 0.5 }", "pool.layout.compression: 0.5 — allowed: a ratio 1..100 (lsize / psize)"),
        ("layout", '{ files = [["16K"]] }', 'pool.layout.files[0]: [array] — allowed: a [size, weight] pair such as ["16K", 0.2]'),
        ("layout", '{ files = [["16K", 0]] }', "pool.layout.files[0][1]: 0 — allowed: a weight greater than 0"),
        ("layout", "{ fragmentaton = 0.4 }", "pool.layout.fragmentaton: unknown key — allowed in pool.layout: "
         "fragmentation, files, compression, seed, written_by\nhint: did you mean fragmentation?"),
        ("layout", '{ written_by = "zfs-0.6.4" }', "pool.layout.written_by: \"zfs-0.6.4\" — allowed: solaris-2009, freebsd-9, "
         "illumos-2012, illumos-2014, zfs-0.6.5, zfs-0.7, zfs-0.8, zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3\nhint: did you mean zfs-0.6.5?"),
    ],
)
def test_pool_fields(key, value, msg):
    assert err(HEAD + POOL + f"{key} = {value}\n") == msg


PRE_LARGE = "a power of two from 512 to 128K (SPA_MAXBLOCKSIZE before large blocks); up to 1M from release illumos-2014"
DEFAULT_1M = ("a power of two from 512 to 1M (the release's default maximum: zfs_max_recordsize, not a ziosim "
              "tunable); up to 16M from release zfs-2.2")


@pytest.mark.parametrize(
    "release, largest, refused, allowed",
    [
        # Before large blocks (illumos 5027, feature large_blocks): SPA_MAXBLOCKSIZE 128K.
        ("solaris-2009", "128K", "256K", PRE_LARGE),
        ("freebsd-9", "128K", "1M", PRE_LARGE),
        ("illumos-2012", "128K", "16M", PRE_LARGE),
        # Large blocks, capped at zfs_max_recordsize's default of 1M (illumos-2014 is
        # bc9014e6a8, after 5027 b515258426; ZoL 0.6.5 … 2.1).
        ("illumos-2014", "1M", "2M", DEFAULT_1M),
        ("zfs-0.6.5", "1M", "2M", DEFAULT_1M),
        ("zfs-2.1", "1M", "16M", DEFAULT_1M),
        # 2.2 raised the default zfs_max_recordsize to 16M, SPA_MAXBLOCKSIZE itself.
        ("zfs-2.2", "16M", "32M", "a power of two from 512 to 16M"),
        ("zfs-2.3", "16M", "32M", "a power of two from 512 to 16M"),
    ],
)
def test_recordsize_is_bounded_by_the_release(release, largest, refused, allowed):
    """`zfs set recordsize` refuses more than SPA_MAXBLOCKSIZE (128K) before large blocks,
    more than zfs_max_recordsize's default (1M) from them, 16M from zfs-2.2; each release
    accepts its own largest and refuses the next power of two up (and beyond)."""
    head = f'[zfs]\nrelease = "{release}"\n'
    assert ok(head + POOL + f'recordsize = "{largest}"\n')["pool"]["recordsize_bytes"] == parse_size(largest, "x")
    on = "" if release in ("zfs-2.2", "zfs-2.3") else f" on {release}"
    assert err(head + POOL + f'recordsize = "{refused}"\n') == (
        f'pool.recordsize: "{refused}" — allowed{on}: {allowed}')
    # Not a power of two: the same message, with the release's own bound.
    assert err(head + POOL + 'recordsize = "96K"\n') == f'pool.recordsize: "96K" — allowed{on}: {allowed}'


def test_explicit_and_generated_names():
    pool = (
        "[pool]\nfill = 0.5\nvdevs = [\n"
        ' { type = "mirror", disks = 2, device = "wd20efrx", names = ["ada0", "sda"] },\n'
        ' { type = "mirror", disks = 2, device = "wd20efrx" },\n]\n'
        'cache = { device = "samsung-850pro", names = ["nvd0"] }\n'
    )
    c = ok(HEAD + pool)
    names = [[d["name"] for d in v["disks"]] for v in c["pool"]["vdevs"]]
    assert names == [["ada0", "sda"], ["sdb", "sdc"]]  # sda is taken, so generation skips it
    assert c["pool"]["cache"][0]["name"] == "nvd0"


def test_duplicate_names_are_rejected():
    pool = (
        "[pool]\nfill = 0.5\nvdevs = [\n"
        ' { type = "disk", device = "wd20efrx", names = ["d0"] },\n'
        ' { type = "disk", device = "wd20efrx", names = ["d0"] },\n]\n'
    )
    assert err(HEAD + pool) == 'pool.vdevs[1].names[0]: "d0" — already used; allowed: a name unique in the pool'


def test_linux_names_go_past_z():
    assert [scenario.linux_disk_name(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)] == [
        "sda",
        "sdz",
        "sdaa",
        "sdab",
        "sdaz",
        "sdba",
        "sdzz",
        "sdaaa",
    ]
    pool = '[pool]\nfill = 0.5\nvdevs = [{ type = "raidz3", disks = 30, device = "wd20efrx" }]\n'
    names = [d["name"] for d in ok(HEAD + pool)["pool"]["vdevs"][0]["disks"]]
    assert names[25:28] == ["sdz", "sdaa", "sdab"] and len(set(names)) == 30


DEV = '[devices.d]\nlike = "hdd-7200-sata-2014"\n'
DPOOL = '[pool]\nfill = 0.5\nvdevs = [{ type = "disk", device = "d" }]\n'


def test_device_overrides_accept_units_and_short_names():
    c = ok(
        HEAD + DEV + 'capacity = "1T"\nseek_read_avg_ns = "9ms"\nqueue_depth = 8\nwrite_cache = false\n'
        'rate_od = "200M/s"\nage_weight = 0\n' + DPOOL
    )
    d = c["devices"]["d"]
    assert d["capacity_bytes"] == 1 << 40
    assert d["seek_read_avg_ns"] == 9_000_000
    assert (d["queue_depth"], d["write_cache"], d["rate_od_bytes_per_s"]) == (8, False, 200 << 20)
    assert d["age_weight"] == 0.0 and isinstance(d["age_weight"], float)
    assert d["rpm"] == 7200  # untouched preset field


def test_unknown_device_field_names_the_nearest():
    msg = err(HEAD + DEV + "queu_depth = 8\n" + DPOOL)
    line, hint = msg.splitlines()
    assert line.startswith("devices.d.queu_depth: unknown key — allowed: like and the fields of hdd-7200-sata-2014: ")
    assert hint == "hint: did you mean queue_depth?"


def test_unknown_preset():
    msg = err(HEAD + '[devices.d]\nlike = "wd20efr"\n' + DPOOL)
    assert msg.splitlines()[1] == "hint: did you mean wd20efrx?"


def test_device_field_types():
    assert err(HEAD + DEV + 'rpm = "fast"\n' + DPOOL) == 'devices.d.rpm: "fast" — allowed: an integer'
    assert err(HEAD + DEV + "write_cache = 1\n" + DPOOL) == "devices.d.write_cache: 1 — allowed: true or false"
    assert err(HEAD + DEV + 'capacity = "-1T"\n' + DPOOL).startswith(
        'devices.d.capacity: "-1T" — a size cannot be negative'
    )


def test_core_device_errors_are_rerooted_at_the_device():
    assert err(HEAD + DEV + "queue_depth = 0\n" + DPOOL) == (
        "devices.d.queue_depth: 0 is out of range; allowed 1..=256"
    )


def test_full_device_spec_with_kind():
    spec = (
        '[devices.s]\nkind = "simple"\ncapacity_bytes = "100G"\nservice_ns_mean = "5ms"\ndistribution = "exponential"\n'
        'bandwidth_bytes_per_s = "100M"\nqueue_depth = 1\nrotational = true\n'
    )
    c = ok(HEAD + spec + '[pool]\nfill = 0.5\nvdevs = [{ type = "disk", device = "s" }]\n')
    assert c["devices"]["s"] == {
        "kind": "simple",
        "capacity_bytes": 100 << 30,
        "service_ns_mean": 5_000_000,
        "distribution": "exponential",
        "bandwidth_bytes_per_s": 100 << 20,
        "queue_depth": 1,
        "rotational": True,
    }


def test_device_reference_must_exist():
    pool = '[pool]\nfill = 0.5\nvdevs = [{ type = "disk", device = "hdd" }]\n'
    assert err(HEAD + DEV + pool).startswith(
        'pool.vdevs[0].device: "hdd" — allowed: a device from [devices] (d) or a preset'
    )


def test_links():
    links = '[links.iscsi]\nkind = "shared"\nrate = "100M/s"\n'
    pool = '[pool]\nfill = 0.5\nvdevs = [{ type = "mirror", disks = 2, device = "wd20efrx", link = "iscsi" }]\n'
    c = ok(HEAD + links + pool)
    assert c["links"] == {"iscsi": {"kind": "shared", "rate_bytes_per_s": 100 << 20}}
    assert {d["link"] for d in c["pool"]["vdevs"][0]["disks"]} == {"iscsi"}
    assert err(HEAD + '[links.pm]\nkind = "sata-pm"\nrate = "280M"\n' + pool).startswith(
        'links.pm.kind: "sata-pm" — allowed: shared, pm-cbs, pm-fbs'
    )
    pm = ok(HEAD + '[links.pm]\nkind = "pm-fbs"\nrate = "280M"\nhost_slots = 16\nlatency = "10us"\n' + pool.replace("iscsi", "pm"))
    assert pm["links"]["pm"] == {"kind": "pm-fbs", "rate_bytes_per_s": 280 << 20, "host_slots": 16, "latency_ns": 10_000}
    iscsi = ok(HEAD + '[links.net]\nlike = "iscsi-1gbe"\n' + pool.replace("iscsi", "net"))
    assert iscsi["links"]["net"]["latency_ns"] == 200_000
    assert err(HEAD + '[links.net]\nlike = "iscsi-1gbe"\nrat = "1G"\n' + pool.replace("iscsi", "net")).startswith(
        "links.net.rat: unknown key"
    )
    bad_ref = pool.replace('"iscsi"', '"isci"')
    assert err(HEAD + links + bad_ref).splitlines()[1] == "hint: did you mean iscsi?"


def test_seed_bounds():
    assert err("[scenario]\nseed = -1\n" + HEAD + POOL) == (
        "scenario.seed: -1 — out of range; allowed: 0..18446744073709551615"
    )


def test_not_toml():
    assert err("[zfs\n").startswith("scenario: not valid TOML — ")


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        scenario.load(tmp_path / "nope.toml")


def test_a_full_spec_without_capacity_is_named(fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "validate_device", lambda spec_json: None)  # a lenient core
    device = '[devices.s]\nkind = "simple"\nqueue_depth = 1\n'
    text = HEAD + device + '[pool]\nfill = 0.5\nvdevs = [{ type = "disk", device = "s" }]\n'
    assert err(text) == "devices.s.capacity_bytes: missing — allowed: a size greater than 0"


# --- robustness: any wrong value anywhere is a ScenarioError, never a crash -------------

WRONG_VALUES = [-1, 0, "x", "", "-4K", [], {}, True, 1.5, 10**30, [["4K"]], {"a": 1}]


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list) and node and all(isinstance(x, dict) for x in node):
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    yield path


def _replaced(doc, path, value):
    import copy

    doc = copy.deepcopy(doc)
    cur = doc
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return doc


@pytest.mark.parametrize("name", BUNDLED)
def test_every_field_with_every_wrong_value_is_a_scenario_error(name):
    doc = scenario.tomllib.loads((SCENARIOS / name).read_text())
    checked = 0
    for path in _leaves(doc):
        if not path:
            continue
        for value in WRONG_VALUES:
            try:
                scenario.from_dict(_replaced(doc, path, value))
            except ScenarioError as e:
                assert "\n" not in e.line and e.line.strip(), (path, value)
            checked += 1
    assert checked > 100


# Values past what the run config's u64 fields hold: 2^64 bytes, 2^64 ns and more.
HUGE_VALUES = ["16E", 1e20, 10**30, "300000d", "16E/s", "1969-01-01 00:00:00"]
U64_MAX = (1 << 64) - 1


def _ints(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _ints(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _ints(v, (*path, i))
    elif isinstance(node, int) and not isinstance(node, bool):
        yield path, node


@pytest.mark.parametrize("name", BUNDLED)
def test_a_value_too_large_for_the_core_is_a_scenario_error(name):
    """What the validator lets through, the core's u64 fields must hold: otherwise the run
    fails with serde's `run config: invalid type … expected u64`, naming no field. Device
    and link fields are the core's own checks (`validate_device`), the fake core has none."""
    doc = scenario.tomllib.loads((SCENARIOS / name).read_text())
    for path in _leaves(doc):
        if not path or path[0] in ("devices", "links"):
            continue
        for value in HUGE_VALUES:
            try:
                config = scenario.from_dict(_replaced(doc, path, value)).config
            except ScenarioError:
                continue
            for where, n in _ints(config):
                lo = -(1 << 63) if "tunables" in where else 0
                assert lo <= n <= U64_MAX, (path, value, where, n)


def test_ram_is_bounded_at_8e():
    assert err(HEAD + 'ram = "16E"\n' + POOL) == 'zfs.ram: "16E" — too large; allowed: "64M" to "8E"'
    assert err(HEAD + "ram = 1e20\n" + POOL) == 'zfs.ram: 1e+20 — too large; allowed: "64M" to "8E"'
    assert err(HEAD + 'ram = "32M"\n' + POOL) == 'zfs.ram: "32M" — too small; allowed: "64M" to "8E"'
    assert ok(HEAD + 'ram = "8E"\n' + POOL)["ram_bytes"] == 8 << 60


def test_start_time_is_from_1970_to_a_four_digit_year():
    head = '[scenario]\nstop = "10s"\nstart_time = "{}"\n' + HEAD
    assert err(head.format("1969-01-01 00:00:00") + POOL) == (
        'scenario.start_time: "1969-01-01 00:00:00" — before 1970; '
        "allowed: 1970-01-01 00:00:00 to 9999-12-31 23:59:49 (UTC)")
    # The run's last date must still print (ctime's four-digit year).
    assert err(head.format("9999-12-31 23:59:59") + POOL) == (
        'scenario.start_time: "9999-12-31 23:59:59" — the run would end after 9999-12-31 23:59:59; '
        "allowed: 1970-01-01 00:00:00 to 9999-12-31 23:59:49 (UTC)")
    assert ok(head.format("1970-01-01 00:00:00") + POOL)["epoch_s"] == 0
    assert ok(head.format("9999-12-31 23:59:49") + POOL)["epoch_s"] == 253402300789


@pytest.mark.parametrize("key, value", [("think", '"401d"'), ("arc_hit_latency", '"300000d"'), ("stop", '"401d"')])
def test_workload_durations_are_bounded_by_the_longest_run(key, value):
    body = f'kind = "random-read"\nthreads = 1\n{key} = {value}\n'
    assert err(wl(body)) == f"workload[0].{key}: {value} — too long; allowed: at most 400d (the longest run)"


def test_start_and_at_past_a_stop_override_are_still_bounded():
    """--stop leaves later workloads and actions out, but the run config still carries them."""
    body = 'kind = "random-read"\nthreads = 1\nstart = "300000d"\n'
    with pytest.raises(ScenarioError, match=r'^workload\[0\]\.start: "300000d" — too long; allowed: at most 400d'):
        scenario.loads(wl(body), stop="1s")
    text = HEAD + POOL + '[[action]]\nat = "300000d"\ndo = "scrub"\n'
    with pytest.raises(ScenarioError, match=r'^action\[0\]\.at: "300000d" — too long; allowed: at most 400d'):
        scenario.loads(text, stop="1s")


def test_net_rate_is_bounded():
    body = 'kind = "nfs-copy"\nthreads = 1\nnet_rate = "16E"\n'
    assert err(wl(body)) == 'workload[0].net_rate: "16E" — allowed: a rate above 0, at most "1T/s"'


def test_pool_size_is_bounded():
    vdev = '{ type = "raidz3", disks = 255, device = "wd20efrx" }, '
    pool = "[pool]\nfill = 0.5\nvdevs = [" + vdev * 17 + "]\n"
    assert err(HEAD + pool) == "pool.vdevs: 4335 disks — too many; allowed: at most 4096 in a pool"


def test_layout_absent_is_left_to_the_core_default():
    assert "layout" not in ok(HEAD + POOL)["pool"]


@pytest.mark.parametrize("name, frag", [("fresh", 0.0), ("aged", 0.6)])
def test_layout_presets(name, frag):
    c = ok(HEAD + POOL + f'layout = "{name}"\n')
    assert c["pool"]["layout"] == {"fragmentation": frag, "files": [], "compression_ratio": 1.0}


def test_layout_table_normalises_sizes_and_ratio():
    c = ok(HEAD + POOL + 'layout = { fragmentation = 0.4, files = [["16K", 0.2], ["1M", 0.8]], compression = 1.5, seed = 3 }\n')
    assert c["pool"]["layout"] == {
        "fragmentation": 0.4,
        "files": [[16384, 0.2], [1 << 20, 0.8]],
        "compression_ratio": 1.5,
        "seed": 3,
    }


def test_layout_written_by_names_a_release():
    c = ok(HEAD + POOL + 'layout = { written_by = "zfs-0.6.5" }\n')
    assert c["pool"]["layout"]["written_by"] == "zfs-0.6.5"


SLOG_POOL = POOL.replace(
    'vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]',
    'vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]\nlog = [{ device = "samsung-850pro", count = 2, mirror = true }]',
)


def test_sync_writes_normalise():
    c = scenario.loads(
        HEAD + 'sync = "always"\nlogbias = "throughput"\n' + SLOG_POOL
        + '\n[[workload]]\nkind = "fsync-write"\nthreads = 2\no_dsync = true\n'
    ).config
    assert (c["sync"], c["logbias"]) == ("always", "throughput")
    assert c["pool"]["log"] == [
        {"type": "mirror", "disks": [{"name": "sdb", "device": "samsung-850pro", "link": None},
                                     {"name": "sdc", "device": "samsung-850pro", "link": None}]}
    ]
    assert c["workloads"][0]["o_dsync"] is True


def test_scenarios_without_sync_settings_keep_their_config():
    c = scenario.loads(HEAD + POOL + '\n[[workload]]\nkind = "random-write"\nthreads = 1\n').config
    assert "sync" not in c and "logbias" not in c and "log" not in c["pool"]
    assert "o_dsync" not in c["workloads"][0] and "files" not in c["workloads"][0]


def test_sync_write_mistakes():
    assert err(HEAD.replace('"zfs-2.2"', '"zfs-2.2"\nsync = "sometimes"') + POOL).startswith('zfs.sync: "sometimes"')
    assert err(wl('kind = "random-write"\nthreads = 1\no_dsync = true\n')).startswith(
        "workload[0].o_dsync: true — applies to fsync-write and database only"
    )
    assert err(wl('kind = "nfs-copy"\nrate = 5\n')).startswith("workload[0].rate: 5.0 — nfs-copy copies file after file")
    assert err(wl('kind = "random-read"\nthreads = 1\nfiles = 3\n')).startswith("workload[0].files: 3 — applies to nfs-copy")


S2009 = HEAD.replace('"zfs-2.2"', '"solaris-2009"')


@pytest.mark.parametrize("prop, value, allowed", [
    ("sync", "always", '"standard"'), ("sync", "disabled", '"standard"'), ("logbias", "throughput", '"latency"'),
])
def test_solaris_2009_predates_the_sync_and_logbias_properties(prop, value, allowed):
    # sync: PSARC/2010/108 (May 2010); logbias: PSARC 2009/423 (snv_122); solaris-2009 ≈ snv_117.
    msg = err(S2009 + f'{prop} = "{value}"\n' + POOL)
    assert msg.startswith(f'zfs.{prop}: "{value}" — allowed on solaris-2009: {allowed}')
    assert msg.endswith(f'"{value}" from release freebsd-9') and "\n" not in msg
    assert ("zfs.tunables.zil_disable = 1" in msg) == (prop == "sync")


def test_solaris_2009_takes_the_defaults_and_zil_disable_and_later_releases_take_everything():
    c = ok(S2009 + 'sync = "standard"\nlogbias = "latency"\ntunables = { zil_disable = 1 }\n' + POOL)
    assert (c["sync"], c["logbias"], c["tunables"]) == ("standard", "latency", {"zil_disable": 1})
    c = ok(HEAD.replace('"zfs-2.2"', '"freebsd-9"') + 'sync = "always"\nlogbias = "throughput"\n' + POOL)
    assert (c["sync"], c["logbias"]) == ("always", "throughput")


def test_nan_and_inf_are_no_value():
    # TOML has nan and inf; no field takes them (found by tests/python/test_fuzz.py: nan
    # passed the range checks and broke the config's JSON with a traceback).
    assert err(wl('kind = "random-read"\nthreads = 1\narc_hit = nan\n')).startswith("workload[0].arc_hit: nan — allowed: a number 0..1")
    assert err(wl('kind = "random-read"\nrate = inf\n')).startswith("workload[0].rate: inf")


def test_zvol_workload_normalises_and_refuses_file_workloads():
    c = scenario.loads(wl('kind = "zvol"\nsize = "4K"\nthreads = 2\nfua = true\nflush_every = 8\n')).config
    w = c["workloads"][0]
    assert (w["kind"], w["fua"], w["flush_every"]) == ("zvol", True, 8)
    c = scenario.loads(wl('kind = "zvol"\nthreads = 1\n')).config
    assert "fua" not in c["workloads"][0] and "flush_every" not in c["workloads"][0]
    assert err(wl('kind = "random-write"\nthreads = 1\nflush_every = 4\n')).startswith(
        "workload[0].flush_every: 4 — applies to zvol only")
    assert err(wl('kind = "zvol"\nthreads = 1\nfua = 1\n')).startswith("workload[0].fua: 1 — allowed: true or false")
    assert err(wl('kind = "zvol"\nthreads = 1\nflush_every = -1\n')).startswith("workload[0].flush_every: -1")
    mixed = wl('kind = "zvol"\nthreads = 1\n[[workload]]\nname = "db"\nkind = "fsync-write"\nthreads = 1\n')
    assert err(mixed).startswith('workload[0].kind: "zvol" — the dataset is then a volume, which db (fsync-write)')
    old = wl('kind = "zvol"\nthreads = 1\n', head=HEAD.replace('"zfs-2.2"', '"solaris-2009"'))
    assert err(old).startswith('workload[0].kind: "zvol" — allowed: from release freebsd-9')


MIRROR = (
    '[devices.hdd]\nlike = "hdd-7200-sata-2014"\n'
    '[pool]\nallocated = "10G"\nvdevs = [{ type = "mirror", disks = 2, device = "hdd", names = ["sda", "sdb"] },'
    ' { type = "raidz1", disks = 3, device = "hdd", names = ["sdc", "sdd", "sde"] }]\n'
)
Z21 = '[zfs]\nrelease = "zfs-2.1"\n'


def test_vdev_actions_normalise():
    c = ok('[scenario]\nstop = "5h"\n' + Z21 + MIRROR + '[[action]]\ndo = "replace"\nold = "sdb"\nnew = "sdf"\nsequential = true\n'
           '[[action]]\nat = "1h"\ndo = "attach"\ndisk = "sdf"\nnew = "sdg"\n'
           '[[action]]\nat = "2h"\ndo = "detach"\ndisk = "sdg"\n'
           '[[action]]\nat = "3h"\ndo = "offline"\ndisk = "sdc"\n'
           '[[action]]\nat = "4h"\ndo = "online"\ndisk = "sdc"\n')
    assert c["actions"][0] == {"at_ns": 0, "do": "replace", "old": "sdb", "new": "sdf", "sequential": True}
    # A disk added by an earlier action can be named later.
    assert c["actions"][1] == {"at_ns": 3600 * 10**9, "do": "attach", "disk": "sdf", "new": "sdg", "sequential": False}
    assert [a["do"] for a in c["actions"][2:]] == ["detach", "offline", "online"]


def test_sequential_needs_zfs_2_0_and_a_mirror():
    old = '[zfs]\nrelease = "zfs-0.8"\n'
    assert err(old + MIRROR + '[[action]]\ndo = "replace"\nold = "sdb"\nnew = "sdf"\nsequential = true\n') == (
        "action[0].sequential: true — allowed: only from release zfs-2.0 (zpool replace -s)")
    assert err(Z21 + MIRROR + '[[action]]\ndo = "replace"\nold = "sdd"\nnew = "sdf"\nsequential = true\n') == (
        'action[0].sequential: true — sdd is in a raidz1: zpool says "only mirror and dRAID vdevs support '
        'sequential reconstruction"; allowed: false for a raidz disk')
    assert err(Z21 + MIRROR + '[[action]]\ndo = "attach"\ndisk = "sdd"\nnew = "sdf"\n') == (
        'action[0].disk: "sdd" — sdd is in a raidz1: zpool says "can only attach to mirrors and top-level '
        'disks"; allowed: a disk or mirror child')
    assert err(Z21 + MIRROR + '[[action]]\ndo = "attach"\ndisk = "sda"\nnew = "sdf"\nsequential = 1\n') == (
        "action[0].sequential: 1 — allowed: true or false")


def test_vdev_action_names_are_checked():
    assert err(Z21 + MIRROR + '[[action]]\ndo = "attach"\ndisk = "sda"\nnew = "sdb"\n') == (
        'action[0].new: "sdb" — allowed: a name no disk of the pool has')
    assert err(Z21 + MIRROR + '[[action]]\ndo = "detach"\ndisk = "sdq"\n').startswith(
        'action[0].disk: "sdq" — allowed: one of sda, sdb, sdc, sdd, sde')
    assert err(Z21 + MIRROR + '[[action]]\ndo = "online"\n').startswith("action[0].disk:")
    assert err(Z21 + MIRROR + '[[action]]\ndo = "offline"\ndisk = "sda"\nnew = "x"\n').startswith(
        "action[0].new: unknown key")


def test_scan_done_accepts_attach_and_online():
    for act in ('do = "attach"\ndisk = "sda"\nnew = "sdf"\n', 'do = "online"\ndisk = "sda"\n'):
        c = ok('[scenario]\nstop = "scan-done"\n' + Z21 + MIRROR + "[[action]]\n" + act)
        assert c["stop_on_scan_done"] is True


def test_database_workload_normalises_with_postgresql_defaults():
    c = scenario.loads(HEAD + POOL + '\n[[workload]]\nkind = "database"\nthreads = 4\narc_hit = 0.9\n').config
    w = c["workloads"][0]
    assert w["kind"] == "database" and w["sizes"] == [[8192, 1.0]] and w["threads"] == 4
    assert w["arc_hit_ratio"] == 0.9
    assert not any(k in w for k in ("reads_per_txn", "wal_bytes", "checkpoint_ns"))  # core defaults
    c = scenario.loads(
        HEAD + POOL + '\n[[workload]]\nkind = "database"\nthreads = 2\nsize = "16K"\nreads = 6\nwal = "16K"\n'
        'dirty_pages = 1\ncheckpoint = "60s"\ncheckpoint_spread = 0.5\no_dsync = true\n'
    ).config
    w = c["workloads"][0]
    assert (w["sizes"], w["reads_per_txn"], w["wal_bytes"], w["dirty_pages_per_txn"]) == ([[16384, 1.0]], 6, 16384, 1)
    assert (w["checkpoint_ns"], w["checkpoint_spread"], w["o_dsync"]) == (60_000_000_000, 0.5, True)


def test_database_and_dirs_mistakes():
    assert err(wl('kind = "database"\nrate = 5\n')).startswith("workload[0].rate: 5.0 — a database runs sessions")
    assert err(wl('kind = "database"\nthreads = 1\ncheckpoint_spread = 1.5\n')) == (
        "workload[0].checkpoint_spread: 1.5 — allowed: a number above 0 and at most 1"
    )
    assert err(wl('kind = "database"\nthreads = 1\ncheckpoint = "0s"\n')).startswith("workload[0].checkpoint: ")
    assert err(wl('kind = "database"\nthreads = 1\nwal = "32M"\n')).startswith(
        'workload[0].wal: "32M" — allowed: a size from 1 byte to 16M'
    )
    assert err(wl('kind = "database"\nthreads = 1\nreads = -1\n')).startswith("workload[0].reads: -1")
    assert err(wl('kind = "random-read"\nthreads = 1\nreads = 3\n')).startswith(
        "workload[0].reads: 3 — applies to database only"
    )
    assert err(wl('kind = "fsync-write"\nthreads = 1\ndirs = 3\n')).startswith(
        "workload[0].dirs: 3 — applies to nfs-copy only"
    )
    c = scenario.loads(HEAD + POOL + '\n[[workload]]\nkind = "nfs-copy"\nthreads = 1\nfiles = 10\ndirs = 2\n').config
    assert c["workloads"][0]["dirs"] == 2


def test_nfs_copy_dirs_at_most_files():
    # File k goes to directory k·dirs/files, made before its first file: a directory
    # without a file would never be made, so more dirs than files is refused.
    nfs = 'kind = "nfs-copy"\nthreads = 1\n'
    assert err(wl(nfs + "files = 1\ndirs = 5\n")) == (
        "workload[0].dirs: 5 — more than files (1): every directory is made for its first file; allowed: 0 … 1")
    assert err(wl(nfs + "dirs = 5\nfiles = 4\n")).startswith("workload[0].dirs: 5 — more than files (4)")
    assert err(wl(nfs + "dirs = 2\n")) == (
        "workload[0].dirs: 2 — with files = 0 (until the run stops) the tree is one directory; "
        "allowed: 0 or 1, or give files")
    assert ok(wl(nfs + "files = 5\ndirs = 5\n"))["workloads"][0]["dirs"] == 5
    assert ok(wl(nfs + "dirs = 1\n"))["workloads"][0]["dirs"] == 1


def test_nfs_copy_source_disk():
    # A preset or a [devices] entry; it joins devices (its own instance, not a pool disk).
    c = scenario.loads(wl('kind = "nfs-copy"\nthreads = 1\nfiles = 10\nsource = "wd20efrx"\n')).config
    assert c["workloads"][0]["source"] == "wd20efrx"
    assert c["devices"]["wd20efrx"]["kind"] == "hdd"
    assert [v["disks"][0]["device"] for v in c["pool"]["vdevs"]] == ["hdd-7200-sata-2014"]
    c = scenario.loads(
        '[devices.home]\nlike = "wd20efrx"\n'
        + wl('kind = "nfs-copy"\nthreads = 1\nfiles = 10\nsource = "home"\n')
    ).config
    assert c["workloads"][0]["source"] == "home"
    # Without source no key (the source is in the client's memory).
    c = scenario.loads(wl('kind = "nfs-copy"\nthreads = 1\nfiles = 10\n')).config
    assert "source" not in c["workloads"][0]


def test_nfs_copy_source_mistakes():
    msg = err(wl('kind = "nfs-copy"\nthreads = 1\nsource = "wd20efrz"\n'))
    assert msg.startswith('workload[0].source: "wd20efrz" — allowed: a device from [devices]')
    assert msg.splitlines()[0].endswith("or a preset")  # one line (a hint may follow)
    assert err(wl('kind = "random-read"\nthreads = 1\nsource = "wd20efrx"\n')).startswith(
        'workload[0].source: "wd20efrx" — applies to nfs-copy only'
    )
    assert err(wl('kind = "nfs-copy"\nthreads = 1\nsource = 3\n')).startswith("workload[0].source: 3 — allowed: a device")


# --- per-disk devices (pool.vdevs[].devices) ------------------------------------------


def vdev(body):
    return HEAD + f"[pool]\nfill = 0.5\nvdevs = [{{ {body} }}]\n"


def test_devices_give_each_disk_its_own():
    c = ok('[devices.slow]\nlike = "hdd-7200-sata-2014"\nqueue_depth = 1\n'
           + vdev('type = "raidz2", disks = 4, devices = ["hdd-7200-sata-2014", "slow", "wd20efrx", "slow"]'))
    disks = c["pool"]["vdevs"][0]["disks"]
    assert [(d["name"], d["device"]) for d in disks] == [
        ("sda", "hdd-7200-sata-2014"), ("sdb", "slow"), ("sdc", "wd20efrx"), ("sdd", "slow")]
    assert set(c["devices"]) == {"slow", "hdd-7200-sata-2014", "wd20efrx"}
    assert c["devices"]["slow"]["queue_depth"] == 1
    # a single disk takes a one-entry array
    c = ok(vdev('type = "disk", devices = ["wd20efrx"]'))
    assert c["pool"]["vdevs"][0]["disks"][0]["device"] == "wd20efrx"


def test_devices_alike_make_the_same_config_as_device():
    one = scenario.loads(vdev('type = "mirror", disks = 2, device = "wd20efrx"'))
    each = scenario.loads(vdev('type = "mirror", disks = 2, devices = ["wd20efrx", "wd20efrx"]'))
    assert each.config == one.config and each.hash == one.hash


def test_usable_capacity_of_a_mixed_vdev_is_its_smallest_disk_times_data_disks():
    small = 1_000_204_886_016  # fake hdd-7200-sata-2014
    big = 2_000_398_934_016  # fake wd20efrx
    c = ok(vdev('type = "raidz2", disks = 6, devices = ["wd20efrx", "wd20efrx", "hdd-7200-sata-2014", '
                '"wd20efrx", "wd20efrx", "wd20efrx"]').replace("fill = 0.5", "fill = 1.0\nashift = 9"))
    assert c["devices"]["hdd-7200-sata-2014"]["capacity_bytes"] == small
    assert c["devices"]["wd20efrx"]["capacity_bytes"] == big
    assert c["pool"]["allocated_bytes"] == 4 * small // 512 * 512
    c = ok(vdev('type = "mirror", disks = 2, devices = ["wd20efrx", "hdd-7200-sata-2014"]')
           .replace("fill = 0.5", "fill = 1.0\nashift = 9"))
    assert c["pool"]["allocated_bytes"] == small // 512 * 512
    # allocated beyond the smallest disk's share is refused, as any over-full pool
    msg = err(HEAD + '[pool]\nallocated = "1.5T"\n'
              'vdevs = [{ type = "mirror", disks = 2, devices = ["wd20efrx", "hdd-7200-sata-2014"] }]\n')
    assert msg.startswith('pool.allocated: "1.5T" — allowed: at least one sector (4096 bytes), at most the usable '
                          f"capacity ({small} bytes)")


@pytest.mark.parametrize(
    "body, msg",
    [
        ('type = "mirror", disks = 2, device = "wd20efrx", devices = ["wd20efrx", "wd20efrx"]',
         "pool.vdevs[0].devices: [array] — allowed: device (the same for every disk) or devices (one per disk), "
         "not both"),
        ('type = "mirror", disks = 2',
         "pool.vdevs[0].device: missing — allowed: a device from [devices] or a preset, or devices (an array of 2, "
         "one per disk)"),
        ('type = "raidz2", disks = 6, devices = ["wd20efrx", "wd20efrx", "wd20efrx", "wd20efrx", "wd20efrx"]',
         "pool.vdevs[0].devices: 5 devices for 6 disks — allowed: an array of 6 devices, one per disk (a [devices] "
         "key or a preset each)"),
        ('type = "disk", devices = []',
         "pool.vdevs[0].devices: 0 devices for 1 disk — allowed: an array of 1 device, one per disk (a [devices] "
         "key or a preset each)"),
        ('type = "mirror", disks = 2, devices = "wd20efrx"',
         'pool.vdevs[0].devices: "wd20efrx" — allowed: an array of 2 devices, one per disk (a [devices] key or a '
         "preset each)"),
        ('type = "mirror", disks = 2, devices = ["wd20efrx", 7]',
         "pool.vdevs[0].devices[1]: 7 — allowed: a device name from [devices] or a preset"),
        ('type = "mirror", disks = 2, devices = ["wd20efrx", "wd20efrz"]',
         # devices[0] has brought the preset wd20efrx into the run's devices
         'pool.vdevs[0].devices[1]: "wd20efrz" — allowed: a device from [devices] (wd20efrx) or a preset\n'
         "hint: did you mean wd20efrx?"),
    ],
)
def test_devices_mistakes(body, msg):
    assert err(vdev(body)) == msg


def test_devices_in_the_second_vdev_are_named_by_its_index():
    text = (HEAD + '[pool]\nfill = 0.5\nvdevs = [{ type = "disk", device = "wd20efrx" }, '
            '{ type = "mirror", disks = 3, devices = ["wd20efrx"] }]\n')
    assert err(text).startswith("pool.vdevs[1].devices: 1 devices for 3 disks — allowed: an array of 3 devices")


def test_actions_on_log_and_cache_disks():
    """fail, offline and online act on log and cache devices (aux_fail.rs); detach,
    replace and attach of one are not modelled and refused, saying what the disk is."""
    pool = ('[pool]\nfill = 0.5\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
            'log = [{ device = "samsung-850pro", count = 2, mirror = true }]\n'
            'cache = { device = "samsung-850pro" }\n')
    # names in pool order: sda sdb (mirror), sdc (cache), sdd sde (log mirror)
    for do in ("fail", "offline", "online"):
        for disk in ("sdc", "sdd"):
            assert ok(HEAD + pool + f'[[action]]\ndo = "{do}"\ndisk = "{disk}"\n')["actions"] == [
                {"at_ns": 0, "do": do, "disk": disk}]
    assert err(HEAD + pool + '[[action]]\ndo = "detach"\ndisk = "sdd"\n') == (
        'action[0].disk: "sdd" — a log device (pool.log); ziosim models only fail, offline and online of log '
        "and cache devices; allowed: one of sda, sdb")
    assert err(HEAD + pool + '[[action]]\ndo = "replace"\nold = "sdc"\nnew = "sdf"\n') == (
        'action[0].old: "sdc" — a cache device (pool.cache); ziosim models only fail, offline and online of log '
        "and cache devices; allowed: one of sda, sdb")
    assert err(HEAD + pool + '[[action]]\ndo = "attach"\ndisk = "sde"\nnew = "sdf"\n') == (
        'action[0].disk: "sde" — a log device (pool.log); ziosim models only fail, offline and online of log '
        "and cache devices; allowed: one of sda, sdb")
    for new in ("sdc", "sde"):  # a new disk may not take a log or cache device's name either
        assert err(HEAD + pool + f'[[action]]\ndo = "attach"\ndisk = "sda"\nnew = "{new}"\n') == (
            f'action[0].new: "{new}" — allowed: a name no disk of the pool has')
    assert err(HEAD + pool + '[[action]]\ndo = "fail"\ndisk = "sdz"\n').startswith(
        'action[0].disk: "sdz" — allowed: one of sda, sdb, sdd, sde, sdc')


# --- device and link fields: units, and the core's errors in the one-line shape ---------

try:  # the compiled core, taken before any test puts the fake in its place
    import importlib as _importlib

    _REAL_CORE = _importlib.import_module("ziosim._core")
except ImportError:
    _REAL_CORE = None


@pytest.fixture
def real_core(monkeypatch, fake_core):
    """The compiled core instead of the module-wide fake: device presets, their `*_ms`
    fields and the core's own range checks."""
    if _REAL_CORE is None or _REAL_CORE is fake_core:
        pytest.skip("ziosim._core is not built (maturin develop)")
    monkeypatch.setitem(__import__("sys").modules, "ziosim._core", _REAL_CORE)
    return _REAL_CORE


LINK_POOL = '[pool]\nfill = 0.5\nvdevs = [{ type = "mirror", disks = 2, device = "wd20efrx", link = "l" }]\n'


@pytest.mark.parametrize("key", ["latency", "per_command_overhead"])
def test_link_durations_need_a_unit(key):
    """A plain number used to become that many ns; it is an error, as for every duration."""
    text = HEAD + f'[links.l]\nkind = "shared"\nrate = "100M"\n{key} = 5\n' + LINK_POOL
    assert err(text) == (f"links.l.{key}: 5 — a duration needs a unit; allowed: a duration with a unit "
                         '(ns, us, ms, s, m, h, d), e.g. "500ms", "60s", "2h40m"')
    c = ok(HEAD + f'[links.l]\nkind = "shared"\nrate = "100M"\n{key} = "5us"\n' + LINK_POOL)
    assert c["links"]["l"][f"{key}_ns"] == 5_000
    # The run config's names are no scenario keys: no way round the unit.
    msg = err(HEAD + f'[links.l]\nkind = "shared"\nrate = "100M"\n{key}_ns = 5\n' + LINK_POOL)
    assert msg.startswith(f"links.l.{key}_ns: unknown key") and msg.endswith(f"hint: did you mean {key}?")


def test_ms_device_fields_take_durations_and_drop_their_suffix(real_core):
    c = ok(HEAD + DEV + 'seek_read_avg_ms = "9ms"\nseek_write_avg = "9500us"\nage_limit = "1.5s"\n'
           "head_switch_ms = 1\nage_weight_ms_per_ms = 0.1\n" + DPOOL)
    d = c["devices"]["d"]
    assert (d["seek_read_avg_ms"], d["seek_write_avg_ms"], d["age_limit_ms"]) == (9.0, 9.5, 1500.0)
    assert d["head_switch_ms"] == 1.0 and isinstance(d["head_switch_ms"], float)
    assert d["age_weight_ms_per_ms"] == 0.1  # a ratio, not a duration
    # Without the suffix a plain number has no unit.
    assert err(HEAD + DEV + "seek_read_avg = 9\n" + DPOOL).startswith(
        "devices.d.seek_read_avg: 9 — a duration needs a unit; allowed: ")
    assert err(HEAD + DEV + 'age_weight_ms_per_ms = "1ms"\n' + DPOOL) == (
        'devices.d.age_weight_ms_per_ms: "1ms" — allowed: a number')


# As every other field's: a wrong choice says only what is allowed (`_choice`).
SHAPE = re.compile(r"^(devices|links)\.\w+\.\w+: \S.* — (?:.+; )?allowed: .+$")
SIMPLE = '[devices.d]\nkind = "simple"\ncapacity = "1T"\nservice_ns_mean = "1ms"\ndistribution = "deterministic"\n'


@pytest.mark.parametrize("body, msg", [
    (DEV + "queue_depth = -1\n", "devices.d.queue_depth: -1 — out of range; allowed: 1..256"),
    (DEV + "queue_depth = 0\n", "devices.d.queue_depth: 0 — out of range; allowed: 1..256"),
    (DEV + "queue_depth = 100000000000000000000\n",
     "devices.d.queue_depth: 100000000000000000000 — out of range; allowed: 1..256"),
    (DEV + 'rate_od = "50M"\nrate_id = "100M"\n',
     "devices.d.rate_id_bytes_per_s: 104857600 — out of range; allowed: 1000000..rate_od_bytes_per_s (52428800)"),
    (DEV + "head_switch_ms = -1\n", "devices.d.head_switch_ms: -1 — out of range; allowed: 0..10"),
    (DEV + 'link_kind = "usb"\n', 'devices.d.link_kind: "usb" — allowed: sata, sas'),
    ('[devices.d]\nlike = "intel-s3700"\njitter_percent = 80\n',
     "devices.d.jitter_percent: 80 — out of range; allowed: 0..50"),
    ('[devices.d]\nlike = "intel-s3700"\nerase_ns = -5\n',
     "devices.d.erase_ns: -5 — out of range; allowed: 0..1000000000"),
    ('[devices.d]\nkind = "tape"\n', 'devices.d.kind: "tape" — allowed: hdd, ssd, simple'),
    (SIMPLE + "queue_depth = 0\n", "devices.d.queue_depth: 0 — out of range; allowed: at least 1"),
    (SIMPLE + "queue_depth = 1.5\n", "devices.d.queue_depth: 1.5 — allowed: an integer"),
    (SIMPLE.replace("deterministic", "normal") + "queue_depth = 1\n",
     'devices.d.distribution: "normal" — allowed: deterministic, exponential'),
    ('[links.d]\nkind = "pm-fbs"\nrate = "100M"\nhost_slots = 0\n',
     "links.d.host_slots: 0 — out of range; allowed: 1..1024"),
    ('[links.d]\nkind = "pm-fbs"\nrate = "100M"\nhost_slots = -1\n',
     "links.d.host_slots: -1 — out of range; allowed: 1..1024"),
    ('[links.d]\nkind = "shared"\nrate = 50\n',
     "links.d.rate_bytes_per_s: 50 — out of range; allowed: 100000..100000000000"),
])
def test_core_device_and_link_errors_have_one_shape(real_core, body, msg):
    """The core's checks and the serde errors about its JSON used to read `queue_depth = 0:
    must be in [1, 256]`, `unknown variant `tape` … at line 1 column 14` or `allowed
    1..=1024`, and -1 was allowed "0 or more" where 0 was not; now every one is
    `<path>.<field>: <value> — <what>; allowed: <range or choices>`, -1 and 0 alike."""
    got = err(HEAD + body + DPOOL)
    assert got == msg
    assert SHAPE.match(got), got


def test_a_full_spec_names_what_is_missing_or_unknown(real_core):
    missing = err(HEAD + '[devices.d]\nkind = "hdd"\nrpm = 7200\n' + DPOOL)
    assert missing.startswith("devices.d.capacity_bytes: missing — a full hdd spec needs every field of the model; "
                              'allowed: all of them, or like = "<preset>" and only the fields to change')
    assert "\n" not in missing
    unknown = err(HEAD + SIMPLE + "queu_depth = 1\n" + DPOOL)
    assert unknown == ("devices.d.queu_depth: unknown key — allowed in a simple spec: kind, capacity_bytes, "
                       "service_ns_mean, distribution, bandwidth_bytes_per_s, queue_depth, rotational, afr_percent, "
                       "nonrecoverable_read_error_bits\nhint: did you mean queue_depth?")
    # The unit suffix may be left off in a full spec too (there is no simple preset to look it up in).
    d = ok(HEAD + SIMPLE + "queue_depth = 1\n" + DPOOL)["devices"]["d"]
    assert (d["capacity_bytes"], d["service_ns_mean"]) == (1 << 40, 1_000_000)


SET_HEAD = '[zfs]\nrelease = "zfs-0.7"\n'
SET_POOL = '[pool]\nfill = 0.5\nvdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'


def _set(tunable, value):
    return (SET_HEAD + SET_POOL + '[[action]]\ndo = "scrub"\n'
            f'[[action]]\nat = "1s"\ndo = "set"\ntunable = "{tunable}"\nvalue = {value}\n')


def test_the_action_order_error_states_its_bound_as_a_duration():
    """It said "not before 1500000000 ns"; a scenario writes durations."""
    def two(first, second):
        return ('[scenario]\nstop = "2h"\n' + HEAD + POOL
                + f'[[action]]\nat = "{first}"\ndo = "scrub"\n[[action]]\nat = "{second}"\ndo = "cancel"\n')

    assert err(two("1s500ms", "1s")) == (
        'action[1].at: "1s" — allowed: actions in time order (not before "1s500ms", action[0]\'s time)')
    assert err(two("61m", "0s")).endswith('(not before "1h1m", action[0]\'s time)')
    assert ok(two("1s500ms", "1500ms"))["actions"][1]["at_ns"] == 1_500_000_000  # the same time is in order


def test_duration_text_is_exact_and_reads_back():
    for ns in (0, 1, 999, 1_000_000_000, 1_500_000_000, 90 * 10**9, 86_400 * 10**9 + 1):
        assert scenario.parse_duration(scenario.duration_text(ns), "x") == ns
    assert [scenario.duration_text(ns) for ns in (0, 10**9, 90 * 10**9, 2_500_000_000)] == ["0s", "1s", "1m30s",
                                                                                           "2s500ms"]


def test_set_of_a_boot_only_tunable_is_refused():
    """A running system cannot change these, so a set action would silently change nothing."""
    def set_(release, tunable, value):
        return (f'[zfs]\nrelease = "{release}"\n' + SET_POOL + '[[action]]\ndo = "scrub"\n'
                f'[[action]]\nat = "1s"\ndo = "set"\ntunable = "{tunable}"\nvalue = {value}\n')

    msg = err(set_("zfs-2.2", "zfs_dirty_data_max_percent", 20))
    assert msg == (
        'action[1].tunable: "zfs_dirty_data_max_percent" — zfs-2.2 reads it only at boot (Linux: a read-only '
        "module parameter, mode 0444; FreeBSD: vfs.zfs.dirty_data_max_percent is a loader tunable, read-only once "
        "booted), so a set at run time changes nothing; allowed: set it in zfs.tunables instead")
    assert "zfs-0.7 reads it only at boot (Linux: a read-only module parameter" in err(
        set_("zfs-0.7", "zfs_dirty_data_max_max", '"1G"'))
    # illumos's mdb can write it, but arc_init read it once, when ZFS started.
    assert "illumos reads it once, when ZFS starts (arc_init)" in err(
        set_("illumos-2014", "zfs_dirty_data_max_percent", 20))
    # FreeBSD 9 made cache_flush_disable a loader tunable; Linux lets it change at run time.
    assert "FreeBSD: vfs.zfs.cache_flush_disable is a loader tunable" in err(
        set_("freebsd-9", "zfs_nocacheflush", 1))
    assert ok(set_("zfs-2.2", "zfs_nocacheflush", 1))["actions"][1]["value"] == 1
    # Writable (0644), but ZFS copies it when the module loads.
    assert "zfs-2.2 reads it only when the zfs module loads (scan_init" in err(
        set_("zfs-2.2", "zfs_scan_fill_weight", 2))
    # solaris-2009's zil_disable is read when a file system is mounted (zfsvfs_setup): a
    # running system's change waits for a remount, which ziosim does not model.
    assert "solaris-2009 reads it only when a file system is mounted (zfsvfs_setup" in err(
        set_("solaris-2009", "zil_disable", 1))
    # 2.3 counts its allocators when the pool is imported (spa_add); a live pool keeps them.
    assert "zfs-2.3 reads it only when a pool is imported (spa_add" in err(
        set_("zfs-2.3", "spa_num_allocators", 2))
    assert ok(set_("zfs-2.2", "zio_dva_throttle_enabled", 0))["actions"][1]["value"] == 0
    # In zfs.tunables they are what the system booted with.
    booted = ok('[zfs]\nrelease = "zfs-2.2"\ntunables = { zfs_dirty_data_max_percent = 20, zfs_scan_fill_weight = 2 }\n'
                + SET_POOL)
    assert booted["tunables"] == {"zfs_dirty_data_max_percent": 20, "zfs_scan_fill_weight": 2}
    # Knobs a running system can change stay allowed.
    assert ok(set_("zfs-2.2", "zfs_vdev_scrub_max_active", 8))["actions"][1]["value"] == 8


def test_boot_only_tunables_per_release():
    """Those `ziosim tunables --platform` marks "(boot)" on every platform that ran the release
    (illumos: those arc_init reads once), zfs_scan_fill_weight from 0.8 and solaris-2009's
    zil_disable (read at mount)."""
    from ziosim import _native

    def boot(release):
        return {t["name"] for t in _native.tunables()
                if t["defaults"].get(release) is not None and scenario.boot_only(t["name"], release)}

    dirty = {"zfs_dirty_data_max_percent", "zfs_dirty_data_max_max"}
    assert boot("zfs-2.2") == boot("zfs-0.8") == dirty | {"zfs_scan_fill_weight"}
    assert boot("zfs-0.7") == boot("illumos-2014") == dirty
    assert boot("freebsd-9") == {"zfs_txg_synctime_ms", "zfs_write_limit_shift", "zfs_write_limit_min",
                                 "zfs_write_limit_override", "zfs_no_write_throttle", "zfs_nocacheflush"}
    assert boot("illumos-2012") == set()
    # zil_disable, which a file system reads at mount.
    assert boot("solaris-2009") == {"zil_disable"}


def test_removed_and_renamed_tunables_name_what_became_of_them():
    """The import audit's words (importers/tunables_conf.py), on the error's one line."""
    def tun(release, name, value=1):
        return err(f'[zfs]\nrelease = "{release}"\ntunables = {{ {name} = {value} }}\n' + SET_POOL)

    older = "releases that have it: freebsd-9, illumos-2012, illumos-2014, zfs-0.6.5, zfs-0.7"
    assert tun("zfs-2.2", "zfs_scan_min_time_ms", 3000) == (
        "zfs.tunables.zfs_scan_min_time_ms: not in release zfs-2.2 (renamed zfs_scrub_min_time_ms in 0.8.0) — "
        f"{older}; in zfs-2.2 its nearest counterpart is zfs_scrub_min_time_ms (ms)")
    assert tun("zfs-0.8", "zfs_top_maxinflight", 32) == (
        "zfs.tunables.zfs_top_maxinflight: not in release zfs-0.8 (removed with the sorted scan in 0.8) — "
        f"{older}; in zfs-0.8 its nearest counterpart is zfs_scan_vdev_limit (bytes)")
    assert tun("zfs-2.2", "zfs_scrub_delay", 0) == (
        f"zfs.tunables.zfs_scrub_delay: not in release zfs-2.2 (removed with the sorted scan in 0.8) — {older}")
    assert tun("zfs-0.7", "zfs_scrub_min_time_ms", 1000) == (
        "zfs.tunables.zfs_scrub_min_time_ms: not in release zfs-0.7 (called zfs_scan_min_time_ms before 0.8.0) — "
        "releases that have it: zfs-0.8, zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3; in zfs-0.7 its nearest counterpart is "
        "zfs_scan_min_time_ms (ms)")
    # solaris-2009 predates zfs_scrub_delay; "removed in 0.8" is no reason there.
    assert tun("solaris-2009", "zfs_scrub_delay", 0) == (
        "zfs.tunables.zfs_scrub_delay: not in release solaris-2009 — releases that have it: freebsd-9, "
        "illumos-2012, illumos-2014, zfs-0.6.5, zfs-0.7")
    # A set action says the same after its own field.
    assert err(_set("zfs_scrub_min_time_ms", 1000)) == (
        'action[1].tunable: "zfs_scrub_min_time_ms" — not in release zfs-0.7 (called zfs_scan_min_time_ms before '
        "0.8.0); releases that have it: zfs-0.8, zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3; in zfs-0.7 its nearest "
        "counterpart is zfs_scan_min_time_ms (ms)")


def test_set_action_errors_name_the_action_field():
    """They used to name zfs.tunables.<name>, a field the scenario does not have."""
    assert err(_set("zfs_scrub_delay", -1)) == (
        "action[1].value: -1 — out of range; allowed: 0..1073741824 ticks")
    assert err(_set("zfs_scrub_delay", '"x"')).startswith('action[1].value: "x" — allowed: an integer')
    assert err(_set("zfs_scrub_dlay", 1)) == (
        'action[1].tunable: "zfs_scrub_dlay" — unknown tunable; allowed: the names `ziosim tunables --release '
        'zfs-0.7` lists\nhint: did you mean zfs_scrub_delay?')
    assert err(_set("zfs_scan_vdev_limit", 1)) == (
        'action[1].tunable: "zfs_scan_vdev_limit" — not in release zfs-0.7; releases that have it: zfs-0.8, '
        "zfs-2.0, zfs-2.1, zfs-2.2, zfs-2.3")
    act = ok(_set("zfs_scrub_delay", 0))["actions"][1]
    assert (act["tunable"], act["value"]) == ("zfs_scrub_delay", 0)


def test_an_action_after_the_stop_is_an_error():
    """QA pass 3 #12: a scrub at 500d under stop = "30s" was dropped without a word (exit 0)."""
    def at(when, stop):
        return f'[scenario]\nstop = "{stop}"\n' + HEAD + POOL + f'[[action]]\nat = "{when}"\ndo = "scrub"\n'

    assert err(at("500d", "30s")) == (
        'action[0].at: "500d" — at or after scenario.stop; allowed: earlier than the run\'s end')
    assert err(at("30s", "30s")).startswith('action[0].at: "30s" — at or after scenario.stop')
    assert err(at("1h", "scan-done or 30m")).startswith('action[0].at: "1h" — at or after scenario.stop')
    assert ok(at("29s", "30s"))["actions"][0]["at_ns"] == 29 * 10**9
    assert ok(at("300d", "scan-done"))["actions"][0]["at_ns"] == 300 * 86_400 * 10**9  # no time bound
    # `--stop` shortening a scenario for a quick look leaves its later actions out.
    assert scenario.loads(at("1m", "1h"), stop="5s").config["actions"][0]["at_ns"] == 60 * 10**9


# --- pool.failmode ------------------------------------------------------------------


def test_failmode_is_wait_unless_set_and_only_a_set_value_reaches_the_run_config():
    assert "failmode" not in ok(HEAD + POOL)["pool"]
    assert ok(HEAD + POOL + 'failmode = "wait"\n')["pool"].get("failmode") is None
    assert ok(HEAD + POOL + 'failmode = "continue"\n')["pool"]["failmode"] == "continue"
    assert ok(HEAD + POOL + 'failmode = "panic"\n')["pool"]["failmode"] == "panic"


def test_a_bad_failmode_names_the_field_and_the_choices():
    msg = err(HEAD + POOL + 'failmode = "contine"\n')
    assert msg.startswith('pool.failmode: "contine" — allowed: "wait", "continue", "panic"'), msg
    assert "continue" in err(HEAD + POOL + "failmode = 1\n")

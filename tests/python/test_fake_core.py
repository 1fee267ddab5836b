"""The fake core must not drift from the real one: when `ziosim._core` is built, its
tables are compared with the fake's, and the bundled scenarios are loaded against it."""

import importlib
import json
import sys

import pytest

from ziosim import scenario

import fake_core
from conftest import SCENARIOS

pytestmark = pytest.mark.needs_core


@pytest.fixture
def real_core(monkeypatch):
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)
    return importlib.import_module("ziosim._core")


def test_releases_match(real_core):
    assert list(real_core.releases()) == fake_core.releases()


def test_tunable_table_matches(real_core):
    real = {t["name"]: t for t in json.loads(real_core.tunables_json(None))}
    fake = {t["name"]: t for t in fake_core.TUNABLES}
    assert sorted(real) == sorted(fake)
    for name, t in fake.items():
        r = real[name]
        assert (r["unit"], r["min"], r["max"], r["defaults"]) == (t["unit"], t["min"], t["max"], t["defaults"]), name


@pytest.mark.parametrize("ram", [256 << 20, 8 << 30, 16 << 30, 64 << 30])
def test_derived_defaults_match(real_core, ram):
    """The fake's copy of the RAM rule (tunables.rs `Tunables::at_load`) gives the core's values."""
    assert json.loads(real_core.tunables_json(None, ram)) == json.loads(fake_core.tunables_json(None, ram))
    for release in fake_core.RELEASES:
        for overrides in ({}, {"zfs_dirty_data_max_percent": 20}, {"zfs_dirty_data_max_max": 1 << 30},
                          {"zfs_dirty_data_max": 3 << 30}):
            have = {t["name"] for t in fake_core.TUNABLES if t["defaults"][release] is not None}
            if not set(overrides) <= have:
                continue
            args = (release, ram, json.dumps(overrides))
            assert json.loads(real_core.tunables_at_load(*args)) == json.loads(fake_core.tunables_at_load(*args)), args


def test_the_default_ram_is_the_scenario_default(real_core):
    from ziosim.units import parse_size

    ram = parse_size(scenario.DEFAULTS["ram"], "zfs.ram")
    assert json.loads(real_core.tunables_json(None)) == json.loads(real_core.tunables_json(None, ram))


def test_presets_used_by_bundled_scenarios_exist(real_core):
    presets = json.loads(real_core.presets_json())
    for name in ("hdd-7200-sata-2014", "wd20efrx", "samsung-850pro"):
        assert name in presets
        assert presets[name]["spec"]["kind"] in ("hdd", "ssd")


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("*.toml")))
def test_bundled_scenarios_load_against_the_real_core(name, real_core):
    sc = scenario.load(SCENARIOS / name)
    real_core.Simulation(sc.config_json())  # the core accepts the run config


def _pool_of(core, sc, vdev_keys=("name", "type", "leaves")):
    """A run's pool document as the tests compare it: its vdevs (those keys), cache, log
    vdevs (name, type, leaves) and each leaf's (name, vdev)."""
    sim = core.Simulation(sc.config_json())
    while not sim.step_events(1_000_000):
        pass
    r = json.loads(sim.results_json())
    return ([{k: v.get(k) for k in vdev_keys} for v in r["pool"]["vdevs"]], r["pool"]["cache"],
            [{k: v[k] for k in ("name", "type", "leaves")} for v in r["pool"]["log"]],
            [(leaf["name"], leaf["vdev"]) for leaf in r["leaves"]])


def test_pool_document_matches_the_real_core(real_core):
    """The vdev names, log vdevs, cache and leaf order the fake reports are the real core's
    (docs/internals.md "Results": pool.vdevs, pool.cache, pool.log)."""
    sc = scenario.loads(
        '[scenario]\nstop = "1s"\n[zfs]\nrelease = "zfs-2.2"\n[pool]\nallocated = "1G"\n'
        'vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" },'
        ' { type = "disk", device = "hdd-7200-sata-2014" }]\n'
        'log = [{ device = "samsung-850pro", count = 2, mirror = true }, { device = "samsung-850pro" }]\n'
        'cache = { device = "samsung-850pro", count = 2 }\n', path="slog.toml")

    real = _pool_of(real_core, sc)
    assert real == _pool_of(fake_core, sc)
    assert real[2] == [{"name": "mirror-2", "type": "mirror", "leaves": [5, 6]},
                       {"name": "sdh", "type": "disk", "leaves": [7]}]


def test_special_vdevs_in_the_pool_document_match_the_real_core(real_core):
    """Special vdevs as the fake reports them are the real core's: among pool.vdevs after the
    data vdevs with their class, numbered after them, their leaves after the data disks'
    and before the cache and log devices' (docs/internals.md "Results")."""
    sc = scenario.loads(
        '[scenario]\nstop = "1s"\n[zfs]\nrelease = "zfs-2.2"\n[pool]\nallocated = "1G"\n'
        'vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]\n'
        'special = [{ type = "mirror", disks = 2, device = "samsung-850pro" }, { type = "disk", '
        'device = "samsung-850pro" }]\n'
        'log = [{ device = "samsung-850pro", count = 2, mirror = true }]\n'
        'cache = { device = "samsung-850pro" }\n', path="special.toml")

    real = _pool_of(real_core, sc, ("name", "type", "class", "leaves"))
    assert real == _pool_of(fake_core, sc, ("name", "type", "class", "leaves"))
    assert real[0] == [{"name": "mirror-0", "type": "mirror", "class": "normal", "leaves": [0, 1]},
                       {"name": "mirror-1", "type": "mirror", "class": "special", "leaves": [2, 3]},
                       {"name": "sde", "type": "disk", "class": "special", "leaves": [4]}]
    assert real[2] == [{"name": "mirror-3", "type": "mirror", "leaves": [6, 7]}]

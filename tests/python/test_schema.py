"""The JSON Schema of the scenario format: it is a valid schema, every bundled scenario
satisfies it, and malformed scenarios fail it. What a schema cannot know (which tunables a
release has) is left to ziosim's own validation, and the tests say so explicitly."""

import sys

import jsonschema
import pytest

from ziosim import ScenarioError, scenario

from conftest import BAD, SCENARIOS

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

SCHEMA = scenario.json_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def toml(text):
    return tomllib.loads(text)


def test_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", sorted([*SCENARIOS.glob("*.toml"), *SCENARIOS.glob("smr/*.toml"),
                                           *SCENARIOS.glob("trace/*.toml"), *SCENARIOS.glob("faults/*.toml"),
                                           *SCENARIOS.glob("draid/*.toml")]),
                         ids=lambda p: p.name)
def test_bundled_scenarios_satisfy_the_schema(path):
    VALIDATOR.validate(tomllib.loads(path.read_text()))


# Malformed examples the schema catches on its own …
SCHEMA_REJECTS = {
    "unknown-key.toml",
    "negative-size.toml",
    "raidz2-two-disks.toml",
    "bad-release.toml",
    "bad-duration.toml",
}
# … and those only ziosim can judge (they need the tunable table of the core).
NEEDS_CORE_TABLES = {"unknown-tunable.toml", "tunable-not-in-release.toml"}


def test_every_bad_example_is_classified():
    assert SCHEMA_REJECTS | NEEDS_CORE_TABLES == {p.name for p in BAD.glob("*.toml")}


@pytest.mark.parametrize("name", sorted(SCHEMA_REJECTS))
def test_malformed_examples_fail_the_schema(name):
    assert not VALIDATOR.is_valid(tomllib.loads((BAD / name).read_text()))


@pytest.mark.parametrize("name", sorted(NEEDS_CORE_TABLES))
def test_tunable_mistakes_pass_the_schema_but_not_ziosim(name, fake_core):
    doc = tomllib.loads((BAD / name).read_text())
    assert VALIDATOR.is_valid(doc)
    with pytest.raises(ScenarioError):
        scenario.load(BAD / name)


BASE = """
[zfs]
release = "zfs-2.2"
[pool]
fill = 0.5
vdevs = [{ type = "disk", device = "wd20efrx" }]
"""


@pytest.mark.parametrize(
    "extra",
    [
        '[[workload]]\nkind = "random-read"\nrate = 1\nthreads = 1\n',
        '[[workload]]\nkind = "random-read"\n',
        '[[workload]]\nkind = "trace"\nthreads = 1\n',
        '[[workload]]\nkind = "random-read"\nthreads = 1\nsize = "4K"\nsizes = [["4K", 1]]\n',
        '[[workload]]\nkind = "random-read"\nthreads = 1\narc_hit = 1.5\n',
        '[[workload]]\nkind = "random-read"\nthreads = 1\nstart = 5\n',
        '[links.x]\nkind = "shared"\n',
        "[devices.d]\nrpm = 7200\n",
        '[devices.d]\nlike = "wd20efrx"\nkind = "hdd"\n',
        '[[action]]\nat = "0s"\ndo = "scrubb"\n',
        '[[action]]\nat = "0s"\n',
    ],
)
def test_malformed_inline_fail_the_schema(extra):
    assert not VALIDATOR.is_valid(toml(BASE + extra))


def test_fill_and_allocated_together_fail():
    assert not VALIDATOR.is_valid(toml(BASE.replace("fill = 0.5", 'fill = 0.5\nallocated = "1T"')))


def test_release_enum_matches_the_core(fake_core):
    assert SCHEMA["properties"]["zfs"]["properties"]["release"]["enum"] == fake_core.releases()


@pytest.mark.needs_core
def test_release_enum_matches_the_real_core(monkeypatch):
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)
    from ziosim import _native

    assert SCHEMA["properties"]["zfs"]["properties"]["release"]["enum"] == _native.releases()


def test_vdev_types_and_workload_kinds_match_the_validator():
    d = SCHEMA["$defs"]
    assert set(d["vdev"]["properties"]["type"]["enum"]) == set(scenario.VDEV_MIN_DISKS) | set(scenario.VDEV_ALIASES)
    assert d["workload"]["properties"]["kind"]["enum"] == list(scenario.WORKLOAD_KINDS)
    assert list(d["workload"]["properties"]) == list(scenario.WORKLOAD_KEYS)
    assert list(d["vdev"]["properties"]) == list(scenario.VDEV_KEYS)
    assert list(SCHEMA["properties"]["pool"]["properties"]) == list(scenario.POOL_KEYS)
    assert list(SCHEMA["properties"]) == list(scenario.TOP_KEYS)

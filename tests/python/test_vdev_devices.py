"""Per-disk devices in a vdev (`pool.vdevs[].devices`, docs/scenario.md): the JSON Schema
agrees with the validator, the docs example is valid, and a run with two presets in one
vdev runs each disk at its own model's speed. The validator's errors and the capacity
rule are in test_scenario.py."""

import re
import sys

import jsonschema
import pytest

from ziosim import ScenarioError, scenario

from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

VALIDATOR = jsonschema.Draft202012Validator(scenario.json_schema())
HEAD = '[zfs]\nrelease = "zfs-2.2"\n[pool]\nfill = 0.5\n'


def doc(vdev: str) -> dict:
    return tomllib.loads(HEAD + f"vdevs = [{{ {vdev} }}]\n")


# (vdev table, valid) — the schema decides shape only; a wrong length is ziosim's to find.
CASES = [
    ('type = "mirror", disks = 2, device = "wd20efrx"', True),
    ('type = "mirror", disks = 2, devices = ["wd20efrx", "hdd-7200-sata-2014"]', True),
    ('type = "disk", devices = ["wd20efrx"]', True),
    ('type = "mirror", disks = 2, device = "wd20efrx", devices = ["wd20efrx", "wd20efrx"]', False),
    ('type = "mirror", disks = 2', False),
    ('type = "mirror", disks = 2, devices = []', False),
    ('type = "mirror", disks = 2, devices = "wd20efrx"', False),
    ('type = "mirror", disks = 2, devices = ["wd20efrx", 7]', False),
]


@pytest.mark.parametrize(("vdev", "valid"), CASES, ids=[c[0] for c in CASES])
def test_schema_and_validator_agree_on_devices(vdev, valid, fake_core):
    assert VALIDATOR.is_valid(doc(vdev)) == valid
    if valid:
        scenario.from_dict(doc(vdev))
    else:
        with pytest.raises(ScenarioError, match=r"^pool\.vdevs\[0\]\.device"):
            scenario.from_dict(doc(vdev))


def test_the_docs_example_is_valid_and_sized_by_its_smallest_disk(fake_core):
    text = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if "devices = [" in b]
    d = tomllib.loads('[zfs]\nrelease = "zfs-2.2"\n' + block)
    assert VALIDATOR.is_valid(d)
    c = scenario.from_dict(d).config
    assert [x["device"] for x in c["pool"]["vdevs"][0]["disks"]] == ["hdd", "hdd", "wd20efrx", "hdd", "hdd", "hdd"]
    hdd = c["devices"]["hdd"]["capacity_bytes"]
    assert c["devices"]["wd20efrx"]["capacity_bytes"] > hdd
    assert c["pool"]["allocated_bytes"] == int(0.5 * 4 * hdd) // 4096 * 4096


@pytest.mark.needs_core
def test_a_vdev_of_two_presets_runs_each_disk_at_its_own_speed():
    """A 5400 rpm WD Red among 7200 rpm drives in a raidz1: every random read touches all three
    disks alike, so the slower spindle alone makes the WD Red's service time longer."""
    from ziosim import _native, runner
    from ziosim.report.summary import build_summary

    text = ('[scenario]\nstop = "5s"\n' + HEAD
            + 'vdevs = [{ type = "raidz1", disks = 3, devices = ["hdd-7200-sata-2014", "wd20efrx", '
              '"hdd-7200-sata-2014"] }]\n[[workload]]\nkind = "random-read"\nsize = "128K"\nthreads = 4\n')
    sc = scenario.loads(text)
    leaves = build_summary(runner.run(sc), {})["leaves"]
    assert {n: leaf["device"] for n, leaf in leaves.items()} == {
        "sda": "hdd-7200-sata-2014", "sdb": "wd20efrx", "sdc": "hdd-7200-sata-2014"}
    presets = _native.presets()
    assert presets["wd20efrx"]["spec"]["rpm"] < presets["hdd-7200-sata-2014"]["spec"]["rpm"]
    service = {n: leaf["classes"]["sync_read"]["disk_wait_ns"]["mean"] for n, leaf in leaves.items()}
    ops = {n: leaf["classes"]["sync_read"]["ops"] for n, leaf in leaves.items()}
    assert min(ops.values()) > 300  # enough reads on each disk for the means to be steady
    assert service["sdb"] > 1.1 * max(service["sda"], service["sdc"]), service

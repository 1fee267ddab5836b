"""`ziosim run --pool SPEC --fill F` (design.md §4: a pool on the command line): the spec
reads like zpool create's vdev list with Nx for N disks of one device; it replaces the
scenario's vdevs, log, cache and spares; bad specs are one line naming the option, exit 2."""

from __future__ import annotations

import json

import pytest

from ziosim import poolspec, scenario
from ziosim.errors import ScenarioError

from conftest import SCENARIOS
from test_cli_inputs import invoke

needs_core = pytest.mark.needs_core
HDD = "hdd-7200-sata-2014"


@pytest.mark.parametrize("spec, fields", [
    ("raidz2 6x hdd", {"vdevs": [{"type": "raidz2", "disks": 6, "device": "hdd"}]}),
    ("3x mirror 2x hdd", {"vdevs": [{"type": "mirror", "disks": 2, "device": "hdd"}] * 3}),
    ("hdd", {"vdevs": [{"type": "disk", "device": "hdd"}]}),
    ("4x hdd", {"vdevs": [{"type": "disk", "device": "hdd"}] * 4}),
    ("mirror 2x a, raidz1 3x b", {"vdevs": [{"type": "mirror", "disks": 2, "device": "a"},
                                            {"type": "raidz1", "disks": 3, "device": "b"}]}),
    ("draid2:8d:2s 24x hdd", {"vdevs": [{"type": "draid2", "disks": 24, "data": 8, "spares": 2, "device": "hdd"}]}),
    ("draid 5x hdd", {"vdevs": [{"type": "draid1", "disks": 5, "device": "hdd"}]}),
    ("draid3:24c 24x hdd", {"vdevs": [{"type": "draid3", "disks": 24, "device": "hdd"}]}),
    ("raidz2 6x hdd log mirror 2x s3700 cache 850pro spare 2x hdd",
     {"vdevs": [{"type": "raidz2", "disks": 6, "device": "hdd"}],
      "log": [{"device": "s3700", "count": 2, "mirror": True}],
      "cache": {"device": "850pro"}, "spares": {"device": "hdd", "count": 2}}),
    ("mirror 2x hdd log 2x s3700 mirror 2x s3700",
     {"vdevs": [{"type": "mirror", "disks": 2, "device": "hdd"}],
      "log": [{"device": "s3700", "count": 2}, {"device": "s3700", "count": 2, "mirror": True}]}),
    ("mirror 2x hdd log 2x mirror 2x s3700",
     {"vdevs": [{"type": "mirror", "disks": 2, "device": "hdd"}],
      "log": [{"device": "s3700", "count": 2, "mirror": True}] * 2}),
    # zpool create tank raidz2 … special mirror nvme0 nvme1 (0.8+): special groups read as data groups.
    ("raidz2 6x hdd special mirror 2x s3700 log s3700",
     {"vdevs": [{"type": "raidz2", "disks": 6, "device": "hdd"}],
      "special": [{"type": "mirror", "disks": 2, "device": "s3700"}], "log": [{"device": "s3700"}]}),
    ("2x mirror 2x hdd special 2x mirror 2x s3700, s3700",
     {"vdevs": [{"type": "mirror", "disks": 2, "device": "hdd"}] * 2,
      "special": [{"type": "mirror", "disks": 2, "device": "s3700"}] * 2 + [{"type": "disk", "device": "s3700"}]}),
])
def test_a_spec_gives_the_pool_fields_zpool_create_would(spec, fields):
    assert poolspec.parse_pool(spec) == fields


@pytest.mark.parametrize("spec, why", [
    ("", "empty"),
    ("raidz2 5 hdd", '"raidz2" needs its disk count before the device, e.g. "raidz2 6x hdd"'),
    ("mirror hdd", '"mirror" needs its disk count before the device, e.g. "mirror 2x hdd"'),
    ("raidz2 6x", 'a device name must follow "raidz2 6x"'),
    ("raidz4 6x hdd", '"raidz4" is not a vdev type'),
    ("0x hdd", '"0x" — a count is at least 1'),
    ("draid2:4c 6x hdd", '"draid2:4c" says 4 children but 6 disks follow it'),
    ("log s3700", "no data vdev before the special, log, cache or spare section"),
    ("hdd log raidz1 3x s3700", "a raidz1 log vdev — ZFS logs are single devices or mirrors"),
    ("hdd log mirror 1x s3700", "a log mirror of 1 disk — a mirror has at least 2"),
    ("hdd cache a cache b", 'a second "cache" section'),
    ("hdd cache a b", "two groups of cache devices"),
    ("hdd cache", '"cache" with no device after it'),
    ("hdd dedup mirror 2x ssd", "dedup vdevs are not modelled"),
    ("hdd special draid2:2d 5x ssd", '"draid2" in the special section — ziosim models no dRAID special vdev'),
    ("hdd special mirror 2x a special b", 'a second "special" section'),
    ("special mirror 2x ssd", "no data vdev before the special, log, cache or spare section"),
    ("hdd a/b", '"a/b" is not a device name'),
])
def test_a_bad_spec_is_one_line_naming_the_option(spec, why):
    with pytest.raises(ScenarioError) as e:
        poolspec.parse_pool(spec)
    assert e.value.line.startswith(f"--pool: {json.dumps(spec)} — {why}"), e.value.line
    assert "allowed: " in e.value.line


@pytest.mark.parametrize("text, ratio", [("62%", 0.62), ("0.62", 0.62), ("99.9%", 0.999), ("1", 1.0)])
def test_fill_takes_a_ratio_or_a_percentage(text, ratio):
    assert poolspec.parse_fill(text) == ratio


@pytest.mark.parametrize("text", ["0", "0%", "101%", "1.5", "lots"])
def test_fill_outside_0_to_1_is_refused(text):
    with pytest.raises(ScenarioError, match=r"^--fill: "):
        poolspec.parse_fill(text)


def test_the_spec_replaces_the_devices_and_keeps_the_rest_of_the_pool():
    doc = {"pool": {"name": "big", "ashift": 9, "allocated": "1T", "vdevs": [{"type": "disk", "device": "x"}],
                    "special": [{"type": "disk", "device": "w"}], "log": [{"device": "y"}], "cache": {"device": "z"}}}
    poolspec.apply(doc, poolspec.parse_pool(f"raidz1 3x {HDD}"), 0.5)
    assert doc["pool"] == {"name": "big", "ashift": 9, "fill": 0.5,
                           "vdevs": [{"type": "raidz1", "disks": 3, "device": HDD}]}


def test_the_spec_errors_come_before_the_scenario_is_read(tmp_path):
    r = invoke("run", tmp_path / "nonexist.toml", "--pool", "mirror hdd")
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.startswith('error: --pool: "mirror hdd" — "mirror" needs its disk count')


@needs_core
def test_a_field_the_loader_refuses_is_named_with_the_option(tmp_path):
    r = invoke("run", SCENARIOS / "default.toml", "--pool", f"raidz2 300x {HDD}", "--out", tmp_path / "o")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f'error: --pool "raidz2 300x {HDD}": pool.vdevs[0].disks: 300 — too many; allowed: at most 255\n'
    r = invoke("run", SCENARIOS / "default.toml", "--fill", "99.9%", "--stop", "1s", "-q", "--out", tmp_path / "o")
    assert r.exit_code == 2 and r.stderr.startswith('error: --fill "99.9%": pool.fill: 0.999 — does not fit')
    assert not (tmp_path / "o").exists()
    # A --set of a field under the --pool's is named as it was set (QA pass 14).
    r = invoke("run", SCENARIOS / "default.toml", "--pool", f"mirror 2x {HDD} log mirror 2x intel-s3700",
               "--set", 'pool.log[0].device="nope"', "--out", tmp_path / "o")
    assert r.exit_code == 2 and r.stderr.startswith('error: pool.log[0].device: "nope" — allowed:'), r.stderr


@needs_core
def test_a_run_with_a_pool_on_the_command_line_is_the_run_of_the_same_pool_in_the_file(tmp_path):
    spec = f"2x mirror 2x {HDD} log intel-s3700"
    r = invoke("run", SCENARIOS / "default.toml", "--pool", spec, "--fill", "20%", "--stop", "70s", "-q",
               "--json", "--out", tmp_path / "a")
    assert r.exit_code == 0, r.stderr
    by_option = json.loads(r.stdout)
    text = (SCENARIOS / "default.toml").read_text().replace(
        'fill = 0.1\nvdevs = [{ type = "raidz2", disks = 6, device = "hdd" }]',
        f'fill = 0.2\nvdevs = [{{ type = "mirror", disks = 2, device = "{HDD}" }}, '
        f'{{ type = "mirror", disks = 2, device = "{HDD}" }}]\nlog = [{{ device = "intel-s3700" }}]')
    assert "mirror" in text
    f = tmp_path / "same.toml"
    f.write_text(text)
    r = invoke("run", f, "--stop", "70s", "-q", "--json", "--out", tmp_path / "b")
    assert r.exit_code == 0, r.stderr
    in_file = json.loads(r.stdout)
    assert by_option["digest"] == in_file["digest"]
    sc = scenario.load(f)
    assert [v["type"] for v in sc.config["pool"]["vdevs"]] == ["mirror", "mirror"]


@needs_core
def test_a_run_whose_writes_outgrow_the_pool_says_so(tmp_path):
    """--fill 90 % of a 4G SSD mirror rewritten by 8 threads: its frees come back two syncs
    late, so the writes need more than the vdev has. ziosim models no ENOSPC and says so on
    stderr (docs/output.md); the run still ends normally."""
    sc = tmp_path / "full.toml"
    sc.write_text('[scenario]\nname = "full"\nstop = "12s"\nreport_interval = "2s"\n[zfs]\nrelease = "zfs-2.2"\n'
                  '[devices.small]\nlike = "intel-s3700"\ncapacity = "4G"\n[pool]\nrecordsize = "128K"\n'
                  'vdevs = [{ type = "mirror", disks = 2, device = "small" }]\n'
                  '[[workload]]\nname = "w"\nkind = "random-write"\nsize = "128K"\nthreads = 8\nstop = "8s"\n')
    r = invoke("run", sc, "--fill", "90%", "-q", "--views", "summary", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    warn = [ln for ln in r.stderr.splitlines() if ln.startswith("warning: vdev mirror-0 needed ")]
    assert len(warn) == 1 and "of its 4G" in warn[0] and "no ENOSPC" in warn[0], r.stderr
    r = invoke("run", sc, "--fill", "10%", "-q", "--views", "summary", "--out", tmp_path / "p")
    assert r.exit_code == 0 and "warning" not in r.stderr, r.stderr

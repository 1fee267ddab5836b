"""``ziosim import`` of pools with dRAID vdevs (importers/zpool_status.py, zpool_status_json.py,
scenario.py; docs/import.md, "dRAID").

* The fixtures (tests/python/fixtures/import/): a zfs-2.1 ``draid2:8d:24c:2s-0`` of 16 TB
  disks under a rebuild onto a distributed spare, with its ``zpool list -v`` (2.1 prints no
  leaf SIZE, so the disk size is the vdev's SIZE ÷ (children − spares)); a zfs-2.2 pool of
  two ``draid1`` vdevs whose second one is top-level vdev 2 (a log mirror took id 1), a hot
  spare, a finished rebuild and a scrub; the same 2.1 pool as 2.3's ``zpool status -j``
  after its rebuild. Each is imported, checked, and run for a few simulated seconds: the
  simulated ``zpool status`` must print the pasted tree (ziosim's own vdev numbering aside).
* Round trip: runs of the simulator printed by each release (text, and JSON from 2.3),
  imported and run again, print the same tree and spares.
* Errors: one line naming the file and line (or JSON path), the value and what is allowed.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from ziosim import runner, scenario
from ziosim.errors import ScenarioError
from ziosim.importers import scenario as isc
from ziosim.report.status import zpool_status
from ziosim.report.status_json import zpool_status_json

from conftest import ROOT

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REBUILD_21 = "zfs-2.1-draid-rebuild.txt"
LIST_21 = "zfs-2.1-draid-list-v.txt"
SCRUB_22 = "zfs-2.2-draid-scrub.txt"
JSON_23 = "zfs-2.3-json-draid.txt"
FAILED = "wwn-0x5000c5006f03675a"  # the failed disk of the 2.1 and 2.3 fixtures


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def _build(presets, *files: tuple[str, str], **opts) -> tuple[str, dict]:
    toml = isc.build(isc.read_inputs(list(files)), isc.Options(**opts), presets)
    return toml, tomllib.loads(toml)


def _fixture(name: str) -> tuple[str, str]:
    return (name, (FIX / name).read_text())


def _tree(text: str) -> list[tuple[str, str]]:
    """(name, state) of every config row, spares included, from a zpool status text."""
    cfg = text.split("config:\n", 1)[1].split("\nerrors:", 1)[0]
    rows = [ln.split() for ln in cfg.splitlines() if ln.startswith("\t ")]
    return [(r[0], r[1]) for r in rows if len(r) >= 2 and r[0] != "NAME"]


def _short(toml: str, stop: str = "2s") -> dict:
    """The imported scenario run for ``stop`` (its own stop is the scan's end)."""
    text = re.sub(r'^stop = ".*"', f'stop = "{stop}"', toml, flags=re.M)
    text = re.sub(r'^report_interval = ".*"', 'report_interval = "1s"', text, flags=re.M)
    return runner.run(scenario.loads(text, path="x.toml"))


def _last_status(res: dict, release: str) -> str:
    return zpool_status(res["status"]["snapshots"][-1], release, "tank", res["status"]["epoch_s"], res)


def _acts(doc: dict) -> list[tuple]:
    return [(a["do"], a.get("old") or a.get("disk"), a.get("new"), a.get("sequential")) for a in doc["action"]]


# ----------------------------------------------------------------------------- the fixtures


@pytest.mark.needs_core
def test_a_21_rebuild_onto_a_distributed_spare(presets):
    toml, doc = _build(presets, _fixture(REBUILD_21), _fixture(LIST_21))
    assert doc["zfs"]["release"] == "zfs-2.1"
    (v,) = doc["pool"]["vdevs"]
    assert (v["type"], v["disks"], v["data"], v["spares"]) == ("draid2", 24, 8, 2)
    assert len(v["names"]) == 24 and v["names"][5] == FAILED
    assert "spares" not in doc["pool"]  # distributed spares are no devices
    # The spare goes in first (sequential: the scan line is the rebuild's), then the failure.
    assert _acts(doc) == [("replace", FAILED, "draid2-0-0", True), ("fail", FAILED, None, None)]
    # 2.1's zpool list -v prints no disk SIZE: the vdev's 320T over its 22 non-spare disks.
    assert doc["devices"]["hdd"]["capacity"] == f"{(320 << 40) // 22 >> 30}G"
    assert "SIZE 320T ÷ 22 (children − distributed spares" in toml
    assert doc["pool"]["allocated"] == "140T"  # ALLOC 175T × 8/10
    assert "a dRAID vdev (draid2:8d:24c:2s-0, line 13): zfs-2.1 and later" in toml
    res = _short(toml)
    assert [a["error"] for a in res["actions"]] == [None, None], res["actions"]
    text = _last_status(res, "zfs-2.1")
    assert "  scan: resilver (draid2:8d:24c:2s-0) in progress since Tue Mar 12 02:14:07 2024\n" in text
    assert _tree(text) == _tree((FIX / REBUILD_21).read_text())


@pytest.mark.needs_core
def test_a_22_pool_numbers_its_distributed_spares_by_vdev_id(presets):
    toml, doc = _build(presets, _fixture(SCRUB_22))
    assert doc["zfs"]["release"] == "zfs-2.2"
    assert [(v["type"], v["disks"], v["data"], v["spares"]) for v in doc["pool"]["vdevs"]] == [("draid1", 11, 4, 1)] * 2
    assert doc["pool"]["spares"]["names"] == ["sdz"]  # the hot spare only
    # draid1:4d:11c:1s-2 is the scenario's second data vdev: its spare draid1-2-0 is draid1-1-0 here.
    assert "draid1-2-0 is draid1-1-0" in toml
    assert _acts(doc) == [("replace", "sdr", "draid1-1-0", True), ("fail", "sdr", None, None)]
    # The scrub follows the rebuild by itself (zfs_rebuild_scrub_enabled): no scrub action.
    assert "the scrub in progress: no scrub action" in toml
    assert "the rebuild of draid1:4d:11c:1s-2 finished in 06:41:18; the replace above runs it again" in toml
    assert "auto" not in doc["pool"]["spares"]
    res = _short(toml, "3s")
    assert [a["error"] for a in res["actions"]] == [None, None], res["actions"]
    ours = {"draid1:4d:11c:1s-1": "draid1:4d:11c:1s-2", "mirror-2": "mirror-1", "draid1-1-0": "draid1-2-0"}
    got = [(ours.get(n, n), s) for n, s in _tree(_last_status(res, "zfs-2.2"))]
    assert got == _tree((FIX / SCRUB_22).read_text())


@pytest.mark.needs_core
def test_a_23_json_after_the_rebuild(presets):
    toml, doc = _build(presets, _fixture(JSON_23))
    _, text_doc = _build(presets, _fixture(REBUILD_21))
    assert doc["zfs"]["release"] == "zfs-2.3"
    assert doc["pool"]["vdevs"] == [{**text_doc["pool"]["vdevs"][0], "device": "hdd"}]
    assert "spares" not in doc["pool"]
    # No rebuild runs in the JSON: the spare went in as zed does it, with -s.
    assert _acts(doc) == [("replace", FAILED, "draid2-0-0", True), ("fail", FAILED, None, None)]
    assert "sequential, as zed puts a distributed spare in (replace -s)" in toml
    assert doc["devices"]["hdd"]["capacity"] == "14950G"  # phys_space 14.6T
    assert doc["pool"]["allocated"] == "140T"  # alloc_space 175T × 8/10
    res = _short(toml)
    assert [a["error"] for a in res["actions"]] == [None, None], res["actions"]
    assert re.search(r"\n\t  draid2-0-0 +INUSE     currently in use\n", _last_status(res, "zfs-2.3"))


# ----------------------------------------------------------------------------- round trip

SCEN = """[scenario]
stop = "{stop}"
report_interval = "2s"
[zfs]
release = "{release}"
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "20G"
[pool]
name = "tank"
allocated = "3G"
vdevs = [{{ type = "mirror", disks = 2, device = "hdd" }},
         {{ type = "draid2", disks = 9, data = 4, spares = 2, device = "hdd" }}]
{spares}
[[action]]
at = "1s"
do = "fail"
disk = "sdf"
"""


@pytest.mark.needs_core
@pytest.mark.parametrize(("release", "hot"), [("zfs-2.1", False), ("zfs-2.2", True), ("zfs-2.3", False)])
def test_a_printed_draid_pool_reads_back_as_the_same_tree(presets, release, hot):
    spares = 'spares = { device = "hdd", count = 1, names = ["sdz"] }' if hot else ""
    first = runner.run(scenario.loads(SCEN.format(stop="6s", release=release, spares=spares), path="x.toml"))
    # The retire agent takes the first spare: the hot one if any, else draid2-1-0.
    new = "sdz" if hot else "draid2-1-0"
    assert any(a.get("by") == "retire agent" and new in a["command"] for a in first["actions"]), first["actions"]
    snap = next(s for s in first["status"]["snapshots"] if s.get("rebuild") or (s["scan"] or {}).get("state"))
    epoch = first["status"]["epoch_s"]
    text = zpool_status(snap, release, "tank", epoch, first)
    files = [("status.txt", text)]
    if release == "zfs-2.3":
        files = [("status.json", zpool_status_json(snap, release, "tank", epoch,
                                                   layout={"pool": first["pool"], "leaves": first["leaves"]}))]
    toml, doc = _build(presets, *files)
    draid = doc["pool"]["vdevs"][1]
    assert (draid["type"], draid["disks"], draid["data"], draid["spares"]) == ("draid2", 9, 4, 2)
    assert doc["pool"].get("spares", {}).get("names", []) == (["sdz"] if hot else [])
    assert ("replace", "sdf", new, None if hot else True) == _acts(doc)[0]
    again = _short(re.sub(r'^release = ".*"', f'release = "{release}"', toml, flags=re.M))
    assert [a["error"] for a in again["actions"]] == [None] * len(again["actions"]), again["actions"]
    assert not any(a.get("by") == "retire agent" for a in again["actions"])
    assert _tree(_last_status(again, release)) == _tree(text), text


# ----------------------------------------------------------------------------- release


def test_a_draid_narrows_the_release_guess_to_2_1_and_later(presets):
    # No scan line: zfs-2.0 … 2.3 print none; the dRAID leaves 2.1 … 2.3, and 2.2 is picked.
    text = (FIX / REBUILD_21).read_text()
    bare = re.sub(r"  scan: .*\n(\t.*\n)*", "", text)
    toml, doc = _build(presets, ("s.txt", bare))
    assert doc["zfs"]["release"] == "zfs-2.2"
    assert "a dRAID vdev needs zfs-2.1 or later" in toml


def test_a_release_before_draid_is_refused(presets):
    with pytest.raises(ScenarioError) as e:
        _build(presets, _fixture(REBUILD_21), release="zfs-2.0")
    assert e.value.line == ('--release: "zfs-2.0" — allowed: zfs-2.1, zfs-2.2, zfs-2.3, as zfs-2.1-draid-rebuild.txt '
                            "line 13 shows the dRAID vdev draid2:8d:24c:2s-0 and dRAID came with OpenZFS 2.1.0")


def test_a_scan_line_older_than_draid_is_refused_without_release(presets):
    text = re.sub(r"  scan: .*\n(\t.*\n)*", "  scan: none requested\n", (FIX / REBUILD_21).read_text())
    with pytest.raises(ScenarioError) as e:
        _build(presets, ("s.txt", text))
    assert e.value.line.startswith("s.txt:6: the scan line's format is printed only by freebsd-9, illumos-2012, "
                                   "illumos-2014, zfs-0.6.5, zfs-0.7, zfs-0.8, older than dRAID, yet line 11 shows "
                                   "the dRAID vdev draid2:8d:24c:2s-0")
    assert e.value.line.endswith("pass --release zfs-2.1 or later")
    _, doc = _build(presets, ("s.txt", text), release="zfs-2.2")
    assert doc["zfs"]["release"] == "zfs-2.2"


@pytest.mark.needs_core
def test_cli_old_release_exits_2_on_one_line():
    from ziosim.cli import app

    try:
        cli = CliRunner(mix_stderr=False)
    except TypeError:
        cli = CliRunner()
    r = cli.invoke(app, ["import", str(FIX / REBUILD_21), "--release", "zfs-0.8"], env={"NO_COLOR": "1"})
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith('error: --release: "zfs-0.8" — allowed: zfs-2.1, zfs-2.2, zfs-2.3, as ')
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- spares and the agent


def _without_spare_n(text: str) -> str:
    """The 2.2 fixture with sdr failed and nothing standing in for it."""
    text = re.sub(r"\t    spare-6 .*\n\t      (sdr .*)\n\t      draid1-2-0 .*\n", r"\t    \1\n", text)
    return text.replace("draid1-2-0          INUSE     currently in use", "draid1-2-0          AVAIL   ")


def test_a_failed_draid_disk_beside_a_free_distributed_spare_turns_the_agent_off(presets):
    toml, doc = _build(presets, ("s.txt", _without_spare_n((FIX / SCRUB_22).read_text())))
    assert doc["pool"]["spares"]["auto"] is False
    scenario.loads(toml, path="x.toml")
    assert ("pool.spares.auto = false: sdr of draid1:4d:11c:1s-2 failed and no distributed spare stands in while "
            "draid1-2-0 is free, so the real zed did not act") in toml
    # Without a hot spare, [pool.spares] holds `auto` alone.
    no_hot = re.sub(r"\t  sdz .*\n", "", _without_spare_n((FIX / SCRUB_22).read_text()))
    toml, doc = _build(presets, ("s.txt", no_hot))
    assert doc["pool"]["spares"] == {"auto": False}
    cfg = scenario.loads(toml, path="x.toml").config
    assert cfg["pool"]["spares_auto"] is False and "spares" not in cfg["pool"]
    assert "pool.spares.auto = false: sdr of draid1:4d:11c:1s-2 failed" in toml


# ----------------------------------------------------------------------------- errors


def _error(presets, name: str, text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        _build(presets, (name, text))
    assert "\n" not in e.value.line
    return e.value.line


def test_a_child_count_other_than_the_names_is_refused(presets):
    text = (FIX / REBUILD_21).read_text()
    cut = text.replace("\t    wwn-0x5000c500269e0d37    ONLINE       0     0     0  (resilvering)\n", "")
    assert _error(presets, "s.txt", cut) == (
        "s.txt:39: expected 24 rows under draid2:8d:24c:2s-0 (line 13), as its name's 24c says; found 23 — is the "
        "paste cut off or edited? (zpool status -e leaves healthy disks out: paste it without -e)")
    doc = json.loads((FIX / JSON_23).read_text().split("\n", 1)[1])
    kids = doc["pools"]["tank"]["vdevs"]["tank"]["vdevs"]["draid2:8d:24c:2s-0"]["vdevs"]
    del kids["wwn-0x5000c50086734721"]
    line = _error(presets, "s.json", json.dumps(doc))
    assert line.startswith('s.json:1: .pools.tank.vdevs.tank.vdevs["draid2:8d:24c:2s-0"].vdevs: expected 24 vdevs '
                           "under draid2:8d:24c:2s-0, as its name's 24c says (found 23)")


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("draid2:8d:24c:2s-0", "draid2:8d:24c-0",
     's.txt:13: "draid2:8d:24c-0" — expected a dRAID vdev named as zpool status prints it, '
     'draid<parity>:<data>d:<children>c:<spares>s-<id> ("draid2:8d:24c:2s-0")'),
    ("draid2:8d:24c:2s-0", "draid2:8d:24c:101s-0",
     's.txt:13: "draid2:8d:24c:101s-0" — expected a dRAID geometry zpool create accepts: at most 100 distributed '
     "spares, not 101"),
    ("\t      draid2-0-0  ", "\t      draid2-1-0  ",
     's.txt:21: "draid2-1-0" — a distributed spare under spare-5 of draid2:8d:24c:2s-0; zpool says "dRAID spares can '
     "only replace child devices in their parent's dRAID vdev\"; allowed: one of draid2:8d:24c:2s-0's own "
     "(draid2-0-0, draid2-0-1)"),
    ("\t  draid2-0-1  ", "\t  draid2-0-7  ",
     's.txt:42: "draid2-0-7" — a distributed spare (draid<parity>-<top vdev id>-<spare id>) of no dRAID vdev of '
     "this pool; allowed: draid2-0-0, draid2-0-1"),
])
def test_bad_draid_text_is_one_line(presets, old, new, expected):
    text = (FIX / REBUILD_21).read_text()
    assert old in text
    assert _error(presets, "s.txt", text.replace(old, new)) == expected


def test_bad_draid_json_is_one_line(presets):
    doc = json.loads((FIX / JSON_23).read_text().split("\n", 1)[1])
    top = doc["pools"]["tank"]["vdevs"]["tank"]["vdevs"]
    top["draid2:8d:24c:2s-0"]["name"] = "1234567890"  # zpool status -j -g
    assert _error(presets, "s.json", json.dumps(doc)).startswith(
        's.json:1: .pools.tank.vdevs.tank.vdevs["draid2:8d:24c:2s-0"].name: "1234567890" — expected a dRAID vdev '
        "named draid<parity>:<data>d:<children>c:<spares>s-<id>")
    doc = json.loads((FIX / JSON_23).read_text().split("\n", 1)[1])
    doc["pools"]["tank"]["spares"]["draid2-0-1"]["name"] = "9876543210"
    assert _error(presets, "s.json", json.dumps(doc)).startswith(
        's.json:1: .pools.tank.spares["draid2-0-1"].name: "9876543210" — expected a distributed spare named '
        "draid<parity>-<top vdev id>-<spare id>")


def test_workload_from_iostat_refuses_draid(presets):
    iostat = ("              capacity     operations     bandwidth\n"
              "pool        alloc   free   read  write   read  write\n"
              "----------  -----  -----  -----  -----  -----  -----\n"
              "tank         175T   145T    120     10  15.0M  1.00M\n"
              "----------  -----  -----  -----  -----  -----  -----\n")
    with pytest.raises(ScenarioError, match=r"^--workload-from-iostat: i.txt:4: .* draid2:8d:24c:2s-0 counts once"):
        _build(presets, _fixture(REBUILD_21), ("i.txt", iostat), workload_from_iostat=True)


# ----------------------------------------------------------------------------- the docs example


@pytest.mark.needs_core
def test_docs_example():
    """docs/import.md's dRAID example is this import's output (UPDATE_SNAPSHOTS=1 rewrites it)."""
    import os

    from ziosim.cli import app

    from conftest import check_doc_blocks

    rel = f"tests/python/fixtures/import/{SCRUB_22}"
    r = CliRunner().invoke(app, ["import", rel], env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    a, b = lines.index("# Inferred from the text:"), lines.index("# Assumed — check each against the real system:")
    start = lines.index("[[pool.vdevs]]   # draid1:4d:11c:1s-0 ONLINE (" + rel + " line 15)")
    shown = lines[a:b + 1] + lines[start:]
    command = f"$ ziosim import {rel} | sed -n '/^# Inferred/,/^# Assumed/p; /^\\[\\[pool.vdevs\\]\\]/,$p'"
    expected = {"draid-output": "\n".join([command, *shown]) + "\n"}
    check_doc_blocks(ROOT / "docs" / "import.md", "draid-example", expected, os.environ.get("UPDATE_SNAPSHOTS") == "1")

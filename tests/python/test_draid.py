"""dRAID vdevs (crates/ziosim-model/src/draid.rs): the scenario keys, distributed spares put
in by the retire agent and rebuilt sequentially, and zpool status as zfs-2.1+ prints them."""

import json

import pytest

from ziosim import ScenarioError, runner, scenario
from ziosim.report.status import zpool_status
from ziosim.report.status_json import zpool_status_json


def _text(vdev: str = 'type = "draid2", disks = 8, data = 4, spares = 1', actions: str = "",
          release: str = "zfs-2.2", extra: str = "") -> str:
    return (f'[scenario]\nstop = "scan-done"\nreport_interval = "1m"\n[zfs]\nrelease = "{release}"\n'
            f'[pool]\nallocated = "3G"\nvdevs = [{{ {vdev}, device = "hdd-7200-sata-2014" }}]\n{extra}'
            + actions)


FAIL = '[[action]]\nat = "5s"\ndo = "fail"\ndisk = "sdc"\n'


def _status(res, snap, release="zfs-2.2"):
    return zpool_status(snap, release, "tank", res["status"]["epoch_s"], res)


def test_a_distributed_spare_is_rebuilt_onto_and_listed_in_use():
    res = runner.run(scenario.loads(_text(actions=FAIL)))
    log = [(a["command"], a["error"], a.get("by")) for a in res["actions"]]
    assert log[1] == ("zpool replace -s tank sdc draid2-0-0", None, "retire agent")
    # The rebuild, then the scrub zfs_rebuild_scrub_enabled starts.
    assert [r["state"] for r in res["rebuilds"]] == ["complete"]
    assert [s["func"] for s in res["scans"]] == ["scrub"] and res["end"] == "scan-done"
    text = _status(res, res["status"]["snapshots"][-1])
    assert "\t  draid2:4d:8c:1s-0  DEGRADED     0     0     0\n" in text
    assert "\t    spare-2          DEGRADED     0     0     0\n" in text
    assert "\t      draid2-0-0     ONLINE       0     0     0\n" in text
    assert "\tspares\n\t  draid2-0-0         INUSE     currently in use\n" in text
    assert "  scan: resilvered (draid2:4d:8c:1s-0) " in text
    doc = json.loads(zpool_status_json(res["status"]["snapshots"][-1], "zfs-2.3", "tank", res["status"]["epoch_s"],
                                       layout={"pool": res["pool"], "leaves": res["leaves"]}))
    pool = doc["pools"]["tank"]
    assert pool["spares"]["draid2-0-0"]["vdev_type"] == "dspare"
    top = pool["vdevs"]["tank"]["vdevs"]["draid2:4d:8c:1s-0"]
    assert top["vdev_type"] == "draid"
    assert top["vdevs"]["spare-2"]["vdevs"]["draid2-0-0"]["vdev_type"] == "dspare"
    # summary.json counts what the spare passed on, as its iostat row does (QA 2026-11-28:
    # it said 0 ops while iostat showed the rebuild's writes through it).
    from ziosim.report.summary import build_summary
    meta = {"release": "zfs-2.2", "name": "d", "seed": 0, "version": "t", "scenario_hash": "h"}
    spare = build_summary(res, meta)["leaves"]["draid2-0-0"]
    via = next(l for l in res["leaves"] if l["name"] == "draid2-0-0")["passed_on"]
    assert via["write_bytes"] > 0 and spare["bytes"] == via["read_bytes"] + via["write_bytes"]
    assert spare["ops"] == via["read_ops"] + via["write_ops"] and spare["classes"] == {}


def test_a_new_disk_replaces_the_failed_one_and_the_spare_is_available_again():
    acts = FAIL + '[[action]]\nat = "30m"\ndo = "replace"\nold = "sdc"\nnew = "sdx"\n'
    res = runner.run(scenario.loads(_text(actions=acts)))
    text = _status(res, res["status"]["snapshots"][-1])
    assert "\tspares\n\t  draid2-0-0         AVAIL   \n" in text
    assert " state: ONLINE\n" in text and "spare-" not in text


def test_without_spares_a_failed_disk_waits_for_a_replace():
    res = runner.run(scenario.loads(_text(vdev='type = "draid2", disks = 8, data = 4',
                                          actions=FAIL + '[[action]]\nat = "10s"\ndo = "replace"\nold = "sdc"\n'
                                                         'new = "sdx"\nsequential = true\n')))
    # zpool replace -s onto a new disk: a rebuild of the dRAID, then the scrub.
    assert [r["vdev"] for r in res["rebuilds"]] == ["draid2:4d:8c:0s-0"]
    assert "spares" not in _status(res, res["status"]["snapshots"][-1])


@pytest.mark.parametrize("acts, expected", [
    ('[[action]]\nat = "1s"\ndo = "replace"\nold = "sdc"\nnew = "draid2-0-0"\ndevice = "wd20efrx"\n',
     'action[0].new: "draid2-0-0" — a distributed spare of pool.vdevs[0]; allowed: with do = "replace", without '
     "device"),
    ('[[action]]\nat = "1s"\ndo = "attach"\ndisk = "sdc"\nnew = "draid2-0-0"\n',
     'action[0].new: "draid2-0-0" — a distributed spare of pool.vdevs[0]; allowed: with do = "replace", without '
     "device"),
])
def test_distributed_spare_errors(acts, expected):
    with pytest.raises(ScenarioError) as e:
        scenario.loads(_text(actions=acts))
    assert str(e.value) == expected


def test_a_distributed_spare_only_replaces_its_own_vdevs_disks():
    vdev = 'type = "draid2", disks = 8, data = 4, spares = 1, device = "wd20efrx" }, { type = "mirror", disks = 2'
    acts = '[[action]]\nat = "1s"\ndo = "replace"\nold = "sdi"\nnew = "draid2-0-0"\n'
    with pytest.raises(ScenarioError) as e:
        scenario.loads(_text(vdev=vdev, actions=acts))
    assert str(e.value).startswith('action[0].new: "draid2-0-0" — a distributed spare of pool.vdevs[0]: zpool says '
                                   '"dRAID spares can only replace child devices in their parent\'s dRAID vdev"')


def test_manual_spares_need_a_replace_and_a_fail_alone_is_no_scan():
    # With the retire agent off, a fail starts nothing: scan-done needs a scan action.
    extra = 'spares = { device = "hdd-7200-sata-2014", auto = false }\n'
    with pytest.raises(ScenarioError) as e:
        scenario.loads(_text(actions=FAIL, extra=extra))
    assert str(e.value).startswith('scenario.stop: "scan-done" — allowed only with a scrub, replace, attach '
                                   'or online')


def test_zed_can_be_told_to_leave_the_distributed_spares_alone():
    acts = FAIL + '[[action]]\nat = "10s"\ndo = "replace"\nold = "sdc"\nnew = "draid2-0-0"\n'
    res = runner.run(scenario.loads(_text(actions=acts, extra="spares = { auto = false }\n")))
    log = [(a["command"], a.get("by")) for a in res["actions"]]
    # No retire agent: the administrator's healing resilver onto the spare.
    assert log[1] == ("zpool replace tank sdc draid2-0-0", None) and len(log) == 2
    assert [s["func"] for s in res["scans"]] == ["resilver"] and not res["rebuilds"]
    # Without a distributed spare, `auto` alone is no hot-spare table.
    with pytest.raises(ScenarioError) as e:
        scenario.loads(_text(vdev='type = "draid2", disks = 8', actions=acts.split("[[action]]\nat = \"10s\"")[0]
                             + '[[action]]\nat = "10s"\ndo = "scrub"\n', extra="spares = { auto = false }\n"))
    assert str(e.value).startswith("pool.spares.device: missing")


@pytest.mark.parametrize("kind, lost", [("draid1", True), ("draid2", False)])
def test_a_second_failure_during_the_rebuild_loses_data_on_draid1_only(kind, lost):
    # scenarios/draid/draid1-second-failure.toml at 1 % fill: 24 disks, one distributed
    # spare; a disk dies, and another while the rebuild runs. draid1's groups holding both
    # have no parity left: the rebuild cannot rebuild those chunks, and the scrub after it
    # finds their blocks gone; draid2 rebuilds them from its second parity.
    from conftest import ROOT
    text = (ROOT / "scenarios/draid/draid1-second-failure.toml").read_text()
    text = text.replace('type = "draid1"', f'type = "{kind}"').replace("fill = 0.05", "fill = 0.01")
    res = runner.run(scenario.loads(text))
    errors = res["rebuilds"][0]["errors"]
    scrub = res["scans"][-1]
    assert res["rebuilds"][0]["state"] == "complete" and scrub["func"] == "scrub" and scrub["state"] == "finished"
    assert (errors > 0, scrub["errors"] > 0) == (lost, lost), (errors, scrub["errors"])
    text = _status(res, res["status"]["snapshots"][-1])
    assert ("data errors, use '-v' for a list" in text) == lost


def test_the_summary_line_of_a_scan_with_errors_says_how_many():
    from ziosim.report.summary import scan_summary_lines
    scrub = {"func": "scrub", "state": "finished", "start_ns": 0, "duration_ns": 60 * 10**9,
             "examined_bytes": 1 << 30, "examined_bytes_per_s": (1 << 30) / 60, "processed_bytes": 0}
    assert scan_summary_lines({"scans": [scrub]})[0].endswith("0B repaired")
    assert scan_summary_lines({"scans": [{**scrub, "errors": 7}]})[0].endswith("0B repaired, 7 errors")

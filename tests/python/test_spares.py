"""Hot spares (`pool.spares`, crates/ziosim-model/src/admin.rs): the retire agent's replace on
a failure, spare-N in zpool status and -j, the spare serving reads, and going back to the
spares when the failed disk is replaced."""

import json

import pytest

from ziosim import ScenarioError, runner, scenario
from ziosim.report.status import zpool_status, zpool_status_config
from ziosim.report.status_json import zpool_status_json


def _text(release: str = "zfs-2.2", spares: str = 'spares = { device = "hdd-7200-sata-2014", count = 2 }',
          actions: str = "", vdev: str = 'type = "raidz2", disks = 5') -> str:
    return (f'[scenario]\nstop = "scan-done"\nreport_interval = "5s"\n[zfs]\nrelease = "{release}"\n'
            f'[pool]\nallocated = "3G"\nvdevs = [{{ {vdev}, device = "hdd-7200-sata-2014" }}]\n{spares}\n'
            + actions)


FAIL = '[[action]]\nat = "5s"\ndo = "fail"\ndisk = "sdc"\n'


def _status(res, snap):
    return zpool_status(snap, "zfs-2.2", "tank", res["status"]["epoch_s"], res)


def test_the_retire_agent_puts_a_spare_in_and_it_stays():
    res = runner.run(scenario.loads(_text(actions=FAIL)))
    log = [(a["command"], a["error"], a.get("by")) for a in res["actions"]]
    assert log[1] == ("zpool replace tank sdc sdf", None, "retire agent")
    assert [s["func"] for s in res["scans"]] == ["resilver"] and res["end"] == "scan-done"
    last = res["status"]["snapshots"][-1]
    text = _status(res, last)
    assert "\t    spare-2  DEGRADED     0     0     0\n" in text
    assert "\t      sdc    UNAVAIL      0     0     0  cannot open\n" in text
    assert "\t      sdf    ONLINE       0     0     0\n" in text
    # print_spares: %-8s state, no error counts; "currently in use" for the one in use.
    assert text.endswith("\tspares\n\t  sdf        INUSE     currently in use\n\t  sdg        AVAIL   \n\n"
                         "errors: No known data errors\n")
    doc = json.loads(zpool_status_json(last, "zfs-2.3", "tank", res["status"]["epoch_s"],
                                       layout={"pool": res["pool"], "leaves": res["leaves"]}))
    assert doc["pools"]["tank"]["spares"]["sdf"] == {"name": "sdf", "vdev_type": "disk", "class": "spare",
                                                    "state": "INUSE", "aux": "SPARED"}
    # The vdev is whole again once the spare caught up (redundancy.rs).
    (red,) = res["pool"]["redundancy"]
    assert red["margin"] == 2 and red["restored_ns"] == res["scan"]["end_ns"]
    # The spare serves the failed disk's column: it is read by the scrub it allows.
    assert any(lf["name"] == "sdf" for lf in res["leaves"])


def test_replacing_the_failed_disk_returns_the_spare():
    acts = FAIL + '[[action]]\nat = "2m"\ndo = "replace"\nold = "sdc"\nnew = "sdx"\n'
    res = runner.run(scenario.loads(_text(actions=acts)))
    snaps = res["status"]["snapshots"]
    during = next(s for s in snaps if any(r["name"] == "replacing-0" for r in s["tree"]))
    names = [(r["depth"], r["name"]) for r in during["tree"]]
    i = names.index((2, "spare-2"))
    assert names[i:i + 5] == [(2, "spare-2"), (3, "replacing-0"), (4, "sdc"), (4, "sdx"), (3, "sdf")]
    end = snaps[-1]
    assert [r["name"] for r in end["tree"]] == ["tank", "raidz2-0", "sda", "sdb", "sdx", "sdd", "sde"]
    assert end["spares"] == [{"name": "sdf", "state": "AVAIL"}, {"name": "sdg", "state": "AVAIL"}]
    assert [s["func"] for s in res["scans"]] == ["resilver", "resilver"]


def test_detaching_the_failed_disk_keeps_the_spare_for_good():
    acts = FAIL + '[[action]]\nat = "2m"\ndo = "detach"\ndisk = "sdc"\n'
    res = runner.run(scenario.loads(_text(actions=acts).replace('stop = "scan-done"', 'stop = "3m"')))
    end = res["status"]["snapshots"][-1]
    assert [r["name"] for r in end["tree"]] == ["tank", "raidz2-0", "sda", "sdb", "sdf", "sdd", "sde"]
    assert end["spares"] == [{"name": "sdg", "state": "AVAIL"}]


@pytest.mark.parametrize(("release", "auto", "activated"), [
    ("zfs-2.2", None, True), ("zfs-0.7", None, True), ("illumos-2014", None, True),
    ("zfs-0.6.5", None, False), ("freebsd-9", None, False), ("zfs-2.2", False, False),
])
def test_who_activates_a_spare(release, auto, activated):
    sp = 'spares = { device = "hdd-7200-sata-2014"' + ("" if auto is None else f", auto = {str(auto).lower()}") + " }"
    # A replace later gives the scan-done stop something to wait for where no agent acts.
    acts = FAIL + '[[action]]\nat = "1m"\ndo = "replace"\nold = "sdc"\nnew = "sdx"\n'
    res = runner.run(scenario.loads(_text(release=release, spares=sp, actions=acts)))
    assert any(a.get("by") == "retire agent" for a in res["actions"]) == activated


def test_a_spare_by_hand_and_the_config_view():
    acts = '[[action]]\nat = "5s"\ndo = "replace"\nold = "sdb"\nnew = "sdd"\n'
    res = runner.run(scenario.loads(_text(actions=acts, vdev='type = "mirror", disks = 2')))
    assert res["status"]["snapshots"][-1]["spares"] == [{"name": "sdc", "state": "AVAIL"}, {"name": "sdd", "state": "INUSE"}]
    quiet = runner.run(scenario.loads(_text(actions="", vdev='type = "mirror", disks = 2').replace(
        'stop = "scan-done"', 'stop = "1s"')))
    assert zpool_status_config(quiet, "zfs-2.2").endswith("\tspares\n\t  sdc       AVAIL   \n\t  sdd       AVAIL   \n\n"
                                                          "errors: No known data errors\n")


def test_a_spare_is_only_a_replace_target():
    bad = '[[action]]\nat = "5s"\ndo = "attach"\ndisk = "sdb"\nnew = "sdf"\n'
    with pytest.raises(ScenarioError, match=r'^action\[0\]\.new: "sdf" — a hot spare \(pool\.spares\); allowed: with '
                                            r'do = "replace", without device or sequential$'):
        scenario.loads(_text(actions=bad))
    with pytest.raises(ScenarioError, match=r"^pool\.spares\.auto: 1 — allowed: true or false$"):
        scenario.loads(_text(spares='spares = { device = "hdd-7200-sata-2014", auto = 1 }'))

"""``zpool status -j`` from status snapshots (views ``status-json``, ``status-json-int``).

The expected documents below were written by hand from cmd/zpool/zpool_main.c@zfs-2.3.0
(``status_callback_json``, ``fill_pool_info``, ``fill_vdev_info``, ``vdev_stats_nvlist``,
``scan_status_nvlist``, ``nice_num_str_nvlist``), lib/libnvpair/libnvpair_json.c
(``nvlist_print_json``: one line, no white space, insertion order) and
lib/libspl/timestamp.c (``format_timestamp``) — not produced by running the printer. The
snapshots are tests/python/fixtures/status_snapshots.json (docs/output.md uses them too).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ziosim.report import render_text
from ziosim.report.status_json import _string, zpool_status_json

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ST = json.loads((FIXTURES / "status_snapshots.json").read_text())
E = ST["epoch_s"]  # Sat Oct 14 00:00:01 2023 UTC
HEAD = '{"output_version":{"command":"zpool status","vers_major":0,"vers_minor":1},"pools":'


def leaf(name: str, state: str = "ONLINE", extra: str = "", aux: str = "") -> str:
    """A disk: fill_vdev_info, the three counters, scan_processed, slow_ios (leaves), aux."""
    return (f'"{name}":{{"name":"{name}","vdev_type":"disk","class":"normal","state":"{state}",'
            f'"read_errors":"0","write_errors":"0","checksum_errors":"0",{extra}"slow_ios":"0"{aux}}}')


def interior(name: str, vtype: str, state: str, kids: str) -> str:
    return (f'"{name}":{{"name":"{name}","vdev_type":"{vtype}","class":"normal","state":"{state}",'
            f'"read_errors":"0","write_errors":"0","checksum_errors":"0","vdevs":{{{kids}}}}}')


def test_paused_scrub_as_2_3_prints_it():
    """Strings by default: bytes as zfs_nicebytes ("0B", "6.02T"), counts as zfs_nicenum,
    dates as format_timestamp ("-" for 0), pass_start and scrub_spent_paused as plain
    integers in strings (literal); -T u adds time (get_timestamp: "%lld")."""
    scan = ('"scan_stats":{"function":"SCRUB","state":"SCANNING","start_time":"Sat Oct 14 00:00:01 UTC 2023",'
            '"end_time":"-","to_examine":"10.4T","examined":"6.02T","skipped":"0B","processed":"0B","errors":"0",'
            '"bytes_per_scan":"6.02T","pass_start":"1697241601","scrub_pause":"Sat Oct 14 00:50:01 UTC 2023",'
            '"scrub_spent_paused":"0","issued_bytes_per_scan":"2.11T","issued":"2.11T"}')
    tree = interior("tank", "root", "ONLINE", interior("mirror-0", "mirror", "ONLINE", leaf("sda") + "," + leaf("sdb")))
    want = (HEAD + '{"tank":{"name":"tank","state":"ONLINE","spa_version":"5000","zpl_version":"5",' + scan
            + ',"vdevs":{' + tree + '},"error_count":"0"}},"time":"1697246736"}\n')
    assert zpool_status_json(ST["paused_scrub"], "zfs-2.3", "tank", E) == want


def test_resilver_state_reason_and_notes():
    """The text's UNAVAIL "cannot open" is vdev_state_str CANT_OPEN with aux OPEN_FAILED;
    "(resilvering)" is a non-zero scan_processed (the scan's processed bytes, ziosim keeping
    no per-disk count); the status/action strings are the text's, \\n\\t and all."""
    snap = json.loads(json.dumps(ST["resilver"]))
    doc = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E))
    pool = doc["pools"]["tank"]
    assert list(pool) == ["name", "state", "spa_version", "zpl_version", "status", "action", "scan_stats", "vdevs",
                          "error_count"]
    assert pool["status"] == ("One or more devices is currently being resilvered.  The pool will\n\tcontinue to "
                              "function, possibly in a degraded state.\n")
    assert pool["action"] == "Wait for the resilver to complete.\n"
    rep = pool["vdevs"]["tank"]["vdevs"]["raidz2-0"]["vdevs"]["replacing-1"]
    assert (rep["vdev_type"], rep["state"]) == ("replacing", "DEGRADED")
    old, new = rep["vdevs"]["sdb"], rep["vdevs"]["sdg"]
    assert (old["state"], old["aux"], list(old)[-2:]) == ("CANT_OPEN", "OPEN_FAILED", ["slow_ios", "aux"])
    assert (new["scan_processed"], list(new)[-2:]) == ("300G", ["scan_processed", "slow_ios"])


def test_missing_device_has_msgid_and_moreinfo():
    tree = [{"depth": 0, "name": "tank", "state": "DEGRADED"}, {"depth": 1, "name": "mirror-0", "state": "DEGRADED"},
            {"depth": 2, "name": "sda", "state": "ONLINE"},
            {"depth": 2, "name": "sdb", "state": "UNAVAIL", "note": "cannot open"}]
    snap = {"t_ns": 0, "state": "DEGRADED", "tree": tree, "scan": {"func": "none", "state": "none"}, "rebuild": None}
    pool = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E, as_int=True))["pools"]["tank"]
    assert pool["msgid"] == "ZFS-8000-2Q"
    assert pool["moreinfo"] == "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-2Q"
    assert "scan_stats" not in pool  # spa_scan_get_stats fails for a pool never scanned
    assert pool["error_count"] == 0 and pool["spa_version"] == 5000 and pool["zpl_version"] == 5


def test_rebuild_with_json_int():
    """--json-int: every number an integer — dates in seconds, scan_time and pass_time in
    ns (vrs_*_time_ms * 1000000); rebuild_stats under scan_stats, keyed by top-level vdev,
    with fill_vdev_info's fields and the rebuild's state in place of the vdev's."""
    doc = json.loads(zpool_status_json(ST["rebuild"], "zfs-2.3", "tank", E, as_int=True))
    (vrs,) = doc["pools"]["tank"]["scan_stats"]["rebuild_stats"].values()
    assert vrs == {"name": "mirror-0", "vdev_type": "mirror", "class": "normal", "state": "ACTIVE",
                   "start_time": E, "end_time": 0, "scan_time": 373 * 10**9, "scanned": 442381631488,
                   "issued": 427349245952, "rebuilt": 427349245952, "to_scan": 3859285813493, "errors": 0,
                   "pass_time": 373 * 10**9, "pass_scanned": 442381631488, "pass_issued": 427349245952,
                   "pass_skipped": 0}
    assert list(doc["pools"]["tank"]["scan_stats"]) == ["rebuild_stats"]  # no scrub or resilver ever ran
    assert doc["time"] == E + 373


def test_long_durations_print_as_zpool_does():
    """ZFS_NICENUM_TIME has four units: from 1000 s on the unit is "?" (zutil_nicenum.c)."""
    snap = json.loads(json.dumps(ST["rebuild"]))
    snap["rebuild"][0].update(pass_time_ms=3310 * 1000, scan_time_ms=3310 * 1000)
    vrs = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E))["pools"]["tank"]["scan_stats"]["rebuild_stats"]
    assert (vrs["mirror-0"]["scan_time"], vrs["mirror-0"]["pass_time"]) == ("3?", "3?")


def test_strings_are_escaped_as_nvlist_print_json_does():
    assert _string('a"b\\c\n\t\x01é€') == '"a\\"b\\\\c\\n\\t\\u0001\\u00e9\\u20ac"'
    assert _string("\x7f") == '"\x7f"'          # 0x7f is printed as is
    assert _string("disk\U0001f4be") == '"disk"'  # beyond the BMP: dropped


def test_older_releases_have_no_json():
    with pytest.raises(ValueError, match="release zfs-2.2 has no zpool status -j"):
        zpool_status_json(ST["paused_scrub"], "zfs-2.2", "tank", E)


def test_render_text_prints_the_last_snapshot():
    results = json.loads((FIXTURES / "results_raidz2.json").read_text())
    meta = json.loads((FIXTURES / "meta_raidz2.json").read_text())
    results["status"] = {"epoch_s": E, "snapshots": [ST["resilver"], ST["paused_scrub"]]}
    text = render_text(results, dict(meta, release="zfs-2.3"), views=("status-json", "status-json-int"))
    _, strings, ints = text.split("\n$ ")
    assert strings.splitlines()[0] == "zpool status -j -T u tank"
    assert strings.splitlines()[1] == zpool_status_json(ST["paused_scrub"], "zfs-2.3", "tank", E,
                                                        layout=results).rstrip("\n")
    assert ints.splitlines()[0] == "zpool status -j --json-int -T u tank"
    doc = json.loads(ints.splitlines()[1])
    root = doc["pools"]["tank"]["vdevs"]["tank"]
    assert (root["alloc_space"], root["total_space"]) == (results["pool"]["alloc_bytes"],
                                                        results["pool"]["size_bytes"])
    assert text == render_text(results, dict(meta, release="zfs-2.3"), views=("status-json", "status-json-int"))


# ----------------------------------------------------------------------------- hot spares
# fill_vdev_info (ZM@zfs-2.3.0) prints "class": "spare" for a vdev whose config has
# ZPOOL_CONFIG_IS_SPARE, which vdev_config_generate adds for every vdev_isspare vdev
# (vdev_label.c@zfs-2.3.0) — the spares list's and an active spare's in the tree alike
# (spa_spare_add / spa_spare_activate, spa.c@zfs-2.3.0). spares_nvlist prints each spare
# with only its spare state: AVAIL, or INUSE with aux SPARED (spa_add_spares sets
# VDEV_AUX_SPARED; vdev_aux_str).

def _row(depth: int, name: str, state: str = "ONLINE", note: str = "") -> dict:
    return {"depth": depth, "name": name, "state": state, "read": 0, "write": 0, "cksum": 0, "note": note}


SPARE_TREE = [_row(0, "tank", "DEGRADED"), _row(1, "raidz1-0", "DEGRADED"), _row(2, "sda"),
              _row(2, "spare-1", "DEGRADED"), _row(3, "sdb", "UNAVAIL", "cannot open"), _row(3, "sde"),
              _row(2, "sdc"), _row(2, "sdd")]


def test_an_active_spare_has_the_spare_class_in_the_tree_and_in_spares():
    snap = {"t_ns": 10**10, "state": "DEGRADED", "tree": SPARE_TREE, "scan": {"func": "none", "state": "none"},
            "rebuild": None, "errors": 0,
            "spares": [{"name": "sde", "state": "INUSE"}, {"name": "sdf", "state": "AVAIL"}]}
    pool = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E))["pools"]["tank"]
    spare = pool["vdevs"]["tank"]["vdevs"]["raidz1-0"]["vdevs"]["spare-1"]
    assert (spare["vdev_type"], spare["class"]) == ("spare", "normal")  # spare-N itself is no spare
    assert spare["vdevs"]["sde"] == {"name": "sde", "vdev_type": "disk", "class": "spare", "state": "ONLINE",
                                     "read_errors": "0", "write_errors": "0", "checksum_errors": "0",
                                     "slow_ios": "0"}
    assert spare["vdevs"]["sdb"]["class"] == "normal"  # the disk it stands in for
    assert pool["spares"] == {
        "sde": {"name": "sde", "vdev_type": "disk", "class": "spare", "state": "INUSE", "aux": "SPARED"},
        "sdf": {"name": "sdf", "vdev_type": "disk", "class": "spare", "state": "AVAIL"}}
    assert list(pool)[-2:] == ["spares", "error_count"]
    # A spare made permanent (the failed disk detached) is no longer in the spares list:
    # spa_vdev_detach clears vdev_isspare, so it is an ordinary disk.
    snap["spares"] = [{"name": "sdf", "state": "AVAIL"}]
    tree = json.loads(zpool_status_json(snap, "zfs-2.3", "tank", E))["pools"]["tank"]["vdevs"]["tank"]
    assert tree["vdevs"]["raidz1-0"]["vdevs"]["spare-1"]["vdevs"]["sde"]["class"] == "normal"


@pytest.mark.needs_core
def test_a_spare_that_kicked_in_has_the_spare_class_in_a_real_run():
    """raidz1 with two spares: sdb fails, the retire agent puts sde in; sdb is then replaced
    by sdz, so spare-1 holds replacing-0 and sde until sdz is resilvered."""
    from ziosim import runner, scenario

    text = ('[scenario]\nstop = "35s"\nreport_interval = "5s"\n[zfs]\nrelease = "zfs-2.3"\n'
            '[devices.hdd]\nlike = "hdd-7200-sata-2014"\ncapacity = "10G"\n'
            '[pool]\nallocated = "4G"\nvdevs = [{ type = "raidz1", disks = 4, device = "hdd" }]\n'
            'spares = { device = "hdd", count = 2 }\n'
            '[[action]]\nat = "3s"\ndo = "fail"\ndisk = "sdb"\n'
            '[[action]]\nat = "30s"\ndo = "replace"\nold = "sdb"\nnew = "sdz"\n')
    sc = scenario.loads(text, path="spares.toml")
    res = runner.run(sc)
    last = res["status"]["snapshots"][-1]
    assert [(r["depth"], r["name"]) for r in last["tree"]][3:7] == [
        (2, "spare-1"), (3, "replacing-0"), (4, "sdb"), (4, "sdz")]
    doc = json.loads(render_text(res, runner.meta(sc), views=("status-json",)).splitlines()[-1])
    pool = doc["pools"]["tank"]
    spare = pool["vdevs"]["tank"]["vdevs"]["raidz1-0"]["vdevs"]["spare-1"]["vdevs"]
    assert {name: v["class"] for name, v in spare.items()} == {"replacing-0": "normal", "sde": "spare"}
    assert {name: v["class"] for name, v in spare["replacing-0"]["vdevs"].items()} == {"sdb": "normal",
                                                                                      "sdz": "normal"}
    assert pool["spares"] == {
        "sde": {"name": "sde", "vdev_type": "disk", "class": "spare", "state": "INUSE", "aux": "SPARED"},
        "sdf": {"name": "sdf", "vdev_type": "disk", "class": "spare", "state": "AVAIL"}}

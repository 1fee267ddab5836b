"""The reason ``zpool status`` gives (``status:``/``action:``/``see:``), and its place in
``check_status``'s order, for each release — data errors above all (ZPOOL_STATUS_CORRUPT_DATA).

Expected texts were written by hand from the C sources, not produced by the printer:
``check_status`` in lib/libzfs/libzfs_status.c (il:e14bb3258d, il:0a586cea3c,
il:31d7e8fa33, il:7a09f97bc0; ZM@zfs-0.6.5, @zfs-0.7.0, @zfs-0.8.0, @zfs-2.0.0, @zfs-2.1.0,
@zfs-2.2.0, @zfs-2.3.0) and the ``ZPOOL_STATUS_CORRUPT_DATA`` case of ``status_callback`` /
``print_status_reason`` in cmd/zpool/zpool_main.c at the same tags (the same words in all
of them; msgid ZFS-8000-8A in every ``zfs_msgid_table``).
"""

from __future__ import annotations

import json

import pytest

from ziosim.report.releases import RELEASES
from ziosim.report.status import zpool_status
from ziosim.report.status_json import zpool_status_json

E = 1697241601  # Sat Oct 14 00:00:01 2023 UTC

CORRUPT = [
    "status: One or more devices has experienced an error resulting in data",
    "\tcorruption.  Applications may be affected.",
    "action: Restore the file in question if possible.  Otherwise restore the",
    "\tentire pool from backup.",
]
MISSING_R = "status: One or more devices could not be opened.  Sufficient replicas exist for"
RESILVERING = "status: One or more devices is currently being resilvered.  The pool will"
OFFLINE = "status: One or more devices has been taken offline by the administrator."
REBUILD_SCRUB = "status: One or more devices have been sequentially resilvered, scrubbing"

# The "   see:" prefix of each release's zpool (status_callback's printf).
SEE = {
    "solaris-2009": "http://www.sun.com/msg/",
    "freebsd-9": "http://illumos.org/msg/",  # FreeBSD 9.1+ (illumos 763), not www.
    "illumos-2012": "http://illumos.org/msg/",
    "illumos-2014": "http://illumos.org/msg/",
    "zfs-0.6.5": "http://zfsonlinux.org/msg/",
    "zfs-0.7": "http://zfsonlinux.org/msg/",
    "zfs-0.8": "http://zfsonlinux.org/msg/",
    "zfs-2.0": "https://openzfs.github.io/openzfs-docs/msg/",
    "zfs-2.1": "https://openzfs.github.io/openzfs-docs/msg/",
    "zfs-2.2": "https://openzfs.github.io/openzfs-docs/msg/",
    "zfs-2.3": "https://openzfs.github.io/openzfs-docs/msg/",
}


def row(depth, name, state="ONLINE", note=""):
    return {"depth": depth, "name": name, "state": state, "read": 0, "write": 0, "cksum": 0, "note": note}


# A 2-way mirror whose last source died during the resilver (the run below): the new disk
# is in, the old one cannot be opened, and blocks no copy could serve are in the error log.
TREE_LOST = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"),
             row(2, "sda", "UNAVAIL", "cannot open"), row(2, "sdx")]
TREE_OFFLINE = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"), row(2, "sda"),
                row(2, "sdb", "OFFLINE")]
TREE_MISSING_R = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"), row(2, "sda"),
                  row(2, "sdb", "UNAVAIL", "cannot open")]
TREE_RESILVER = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"), row(2, "sda"),
                 row(2, "sdb", "OFFLINE"), row(2, "sdc", note="(resilvering)")]


def scan(func="resilver", state="finished", **kw) -> dict:
    ps = {"func": func, "state": state, "start_s": E + 2, "end_s": E + 6 if state != "scanning" else 0,
          "to_examine": 2 << 30, "examined": 2 << 30, "skipped": 0, "to_process": 0,
          "processed": 533 << 20, "errors": 12164, "pass_exam": 2 << 30, "pass_start_s": E + 2,
          "pass_scrub_pause_s": 0, "pass_scrub_spent_paused_s": 0, "pass_issued": 2 << 30,
          "issued": 2 << 30}
    ps.update(kw)
    return ps


def snap(tree, errors, ps=None, state="DEGRADED", rebuild=None) -> dict:
    return {"t_ns": 6 * 10**9, "state": state, "tree": tree, "errors": errors,
            "scan": ps or {"func": "none", "state": "none"}, "rebuild": rebuild}


def reason(s: dict, release: str) -> list[str]:
    """The lines between `state:` and the scan line or `config:`."""
    lines = zpool_status(s, release, "tank", E).splitlines()[2:]
    end = next(i for i, ln in enumerate(lines) if ln.startswith(("  scan:", " scrub:", "config:")))
    return lines[:end]


@pytest.mark.parametrize("release", RELEASES)
def test_data_errors_outrank_a_missing_device(release):
    """CORRUPT_DATA is checked before MISSING_DEV_R in every release: the reason is the
    lost data, not "sufficient replicas exist"."""
    s = snap(TREE_LOST, 12164, scan())
    assert reason(s, release) == CORRUPT + [f"   see: {SEE[release]}ZFS-8000-8A"]
    assert zpool_status(s, release, "tank", E).endswith("errors: 12164 data errors, use '-v' for a list\n")
    # No error log, the same tree: the missing device is the reason again.
    s["errors"] = 0
    assert reason(s, release)[0] == MISSING_R


@pytest.mark.parametrize("release", ["solaris-2009", "zfs-0.6.5", "zfs-2.2"])
def test_data_errors_on_a_healthy_pool(release):
    """An ONLINE pool with data errors (the error log outlives the disk that lost them)."""
    tree = [row(0, "tank"), row(1, "mirror-0"), row(2, "sda"), row(2, "sdx")]
    assert reason(snap(tree, 3, scan(), state="ONLINE"), release)[:4] == CORRUPT
    assert reason(snap(tree, 0, scan(), state="ONLINE"), release) == []


def test_data_errors_outrank_an_offline_device():
    s = snap(TREE_OFFLINE, 1)
    assert reason(s, "zfs-2.3")[:4] == CORRUPT
    s["errors"] = 0
    assert reason(s, "zfs-2.3")[0] == OFFLINE


def test_a_pool_that_cannot_open_outranks_data_errors():
    """MISSING_DEV_NR (the root vdev CANT_OPEN) comes before CORRUPT_DATA."""
    tree = [row(0, "tank", "UNAVAIL", "insufficient replicas"),
            row(1, "mirror-0", "UNAVAIL", "insufficient replicas"),
            row(2, "sda", "UNAVAIL", "cannot open"), row(2, "sdb", "UNAVAIL", "cannot open")]
    assert reason(snap(tree, 412, state="UNAVAIL"), "zfs-2.2")[-1] == (
        "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-3C")


@pytest.mark.parametrize(("release", "first"), [
    # il:e14bb3258d / il:0a586cea3c: RESILVERING is the last reason checked, after
    # CORRUPT_DATA and OFFLINE_DEV …
    ("solaris-2009", CORRUPT[0]),
    # … from the 2010 scan rewrite on (il:31d7e8fa33 … ZM@zfs-2.3.0), the first.
    ("illumos-2012", RESILVERING), ("zfs-0.7", RESILVERING), ("zfs-2.3", RESILVERING),
])
def test_a_running_resilver_and_data_errors(release, first):
    s = snap(TREE_RESILVER, 7, scan(state="scanning"))
    assert reason(s, release)[0] == first


def test_2009_checks_an_offline_device_before_resilvering():
    s = snap(TREE_RESILVER, 0, scan(state="scanning", errors=0))
    assert reason(s, "solaris-2009")[0] == OFFLINE
    assert reason(s, "zfs-0.6.5")[0] == RESILVERING


def test_rebuild_reasons_come_before_data_errors():
    """2.0+: REBUILDING and REBUILD_SCRUB are checked right after RESILVERING."""
    base = {"vdev": "mirror-0", "start_s": E, "scan_time_ms": 1000, "scanned": 1 << 30, "issued": 1 << 30,
            "rebuilt": 1 << 30, "estimate": 1 << 30, "pass_start_s": E, "pass_scanned": 1 << 30,
            "pass_issued": 1 << 30, "pass_skipped": 0, "pass_time_ms": 1000, "errors": 0}
    active = dict(base, state="active", end_s=0)
    done = dict(base, state="complete", end_s=E + 1)
    assert reason(snap(TREE_LOST, 5, rebuild=[active]), "zfs-2.0")[0] == RESILVERING
    assert reason(snap(TREE_LOST, 5, rebuild=[done]), "zfs-2.1")[0] == REBUILD_SCRUB
    # Only a *completed* rebuild wants a scrub (audit 4 F3): a cancelled one leaves the
    # missing device as the reason (VDEV_REBUILD_COMPLETE in check_status, ZM@zfs-2.0.0 …).
    cancelled = dict(base, state="canceled", end_s=E + 1)
    assert reason(snap(TREE_MISSING_R, 0, rebuild=[cancelled]), "zfs-2.2") == [
        MISSING_R, "\tthe pool to continue functioning in a degraded state.",
        "action: Attach the missing device and online it using 'zpool online'.",
        f"   see: {SEE['zfs-2.2']}ZFS-8000-2Q"]
    assert reason(snap(TREE_MISSING_R, 0, rebuild=[cancelled, done]), "zfs-2.2")[0] == REBUILD_SCRUB
    # zfs-0.8 has no rebuild: a snapshot carrying one does not change its reason.
    assert reason(snap(TREE_LOST, 5, rebuild=[done]), "zfs-0.8")[:4] == CORRUPT


def test_zpool_status_j_has_the_same_reason():
    """status_callback_json adds print_status_reason's status/action, then msgid and
    moreinfo (ZM@zfs-2.3.0)."""
    pool = json.loads(zpool_status_json(snap(TREE_LOST, 12164, scan()), "zfs-2.3", "tank", E))["pools"]["tank"]
    assert pool["status"] == ("One or more devices has experienced an error resulting in data\n"
                              "\tcorruption.  Applications may be affected.\n")
    assert pool["action"] == ("Restore the file in question if possible.  Otherwise restore the\n"
                              "\tentire pool from backup.\n")
    assert (pool["msgid"], pool["moreinfo"]) == (
        "ZFS-8000-8A", "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A")
    assert pool["error_count"] == "11.9K"  # ZFS_NICENUM_1024: 12164 / 1024 = 11.88
    assert list(pool)[:8] == ["name", "state", "spa_version", "zpl_version", "status", "action", "msgid",
                              "moreinfo"]


# ----------------------------------------------------------------------------- a real run

SOURCE_DIES = """[scenario]
name = "source-dies"
stop = "scan-done or 1h"
report_interval = "4s"
[zfs]
release = "{release}"
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "10G"
[pool]
allocated = "2G"
vdevs = [{{ type = "mirror", disks = 2, device = "hdd" }}]
[[action]]
at = "1s"
do = "fail"
disk = "sdb"
[[action]]
at = "2s"
do = "replace"
old = "sdb"
new = "sdx"
[[action]]
at = "6s"
do = "fail"
disk = "sda"
"""


@pytest.mark.needs_core
@pytest.mark.parametrize("release", ["solaris-2009", "zfs-0.7", "zfs-2.3"])
def test_the_last_copy_dies_during_a_resilver(release):
    """A 2-way mirror: sdb dies, is replaced by sdx, and sda — the only copy — dies while
    sdx is being resilvered. The blocks not yet copied are lost; the status the run ends
    with says so, as zpool would, rather than "sufficient replicas exist"."""
    from ziosim import runner, scenario
    from ziosim.report import render_text

    sc = scenario.loads(SOURCE_DIES.format(release=release), path="source-dies.toml")
    res = runner.run(sc)
    last = res["status"]["snapshots"][-1]
    assert last["errors"] > 0 and last["state"] == "DEGRADED"
    sections = render_text(res, runner.meta(sc), views=("status",)).split("\n$ zpool status tank\n")
    text = sections[-1].splitlines()
    assert text[2:7] == CORRUPT + [f"   see: {SEE[release]}ZFS-8000-8A"]
    assert text[-1] == f"errors: {last['errors']} data errors, use '-v' for a list"
    # Before sda died, nothing was lost: the first snapshot gives another reason.
    assert "ZFS-8000-8A" not in sections[1]
    if release == "zfs-2.3":
        doc = json.loads(render_text(res, runner.meta(sc), views=("status-json-int",)).splitlines()[-1])
        pool = doc["pools"]["tank"]
        assert (pool["msgid"], pool["error_count"]) == ("ZFS-8000-8A", last["errors"])


# ---------------------------------------------------------------- a suspended pool

SUSPENDED = [
    "status: One or more devices are faulted in response to IO failures.",
    "action: Make sure the affected devices are connected, then run 'zpool clear'.",
]
TREE_DEAD_DISK = [row(0, "tank", "UNAVAIL", "insufficient replicas"), row(1, "sda", "UNAVAIL", "cannot open")]


def state_word(s: dict, release: str) -> str:
    return zpool_status(s, release, "tank", E).splitlines()[1]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize(("failmode", "msgid"), [("wait", "ZFS-8000-HC"), ("continue", "ZFS-8000-JQ")])
def test_a_suspended_pool_gives_the_io_failure_reason(release, failmode, msgid):
    """IO_FAILURE_WAIT / _CONTINUE (ZPOOL_CONFIG_SUSPENDED holds the failmode) is checked
    just before the NR device problems and data errors in every release (check_status at
    zfs-fuse 8f1b8655 — onnv's libzfs of 2008–9 — and ZM@zfs-0.6.2 … @zfs-2.3.0); the words
    are status_callback's."""
    s = dict(snap(TREE_DEAD_DISK, 3, state="UNAVAIL"), suspended=failmode)
    assert reason(s, release) == SUSPENDED + [f"   see: {SEE[release]}{msgid}"]
    # The same pool not suspended: the dead device is the reason.
    del s["suspended"]
    assert reason(s, release)[-1] == f"   see: {SEE[release]}ZFS-8000-3C"


@pytest.mark.parametrize(("release", "wait", "cont"), [
    # Before zfs-0.8 `state:` is the root vdev's state (zpool_state_to_name) ...
    ("solaris-2009", "UNAVAIL", "UNAVAIL"), ("illumos-2014", "UNAVAIL", "UNAVAIL"),
    ("zfs-0.7", "UNAVAIL", "UNAVAIL"),
    # ... zpool_get_state_str from 0.8.0 says SUSPENDED for IO_FAILURE_WAIT only ...
    ("zfs-0.8", "SUSPENDED", "UNAVAIL"), ("zfs-2.1", "SUSPENDED", "UNAVAIL"),
    # ... and for IO_FAILURE_CONTINUE too from 2.2.0.
    ("zfs-2.2", "SUSPENDED", "SUSPENDED"), ("zfs-2.3", "SUSPENDED", "SUSPENDED"),
])
def test_the_state_word_of_a_suspended_pool(release, wait, cont):
    s = snap(TREE_DEAD_DISK, 0, state="UNAVAIL")
    assert state_word(dict(s, suspended="wait"), release) == f" state: {wait}"
    assert state_word(dict(s, suspended="continue"), release) == f" state: {cont}"
    assert state_word(s, release) == " state: UNAVAIL"


def test_a_resilvering_suspended_pool_shows_its_root_state():
    """RESILVERING comes first (after 2009), so zpool_get_state_str falls back to the root."""
    tree = [row(0, "tank", "UNAVAIL", "insufficient replicas"), row(1, "raidz1-0", "UNAVAIL", "insufficient replicas"),
            row(2, "sda", "UNAVAIL", "cannot open"), row(2, "sdb", "UNAVAIL", "cannot open"),
            row(2, "sdc", note="(resilvering)")]
    s = dict(snap(tree, 0, scan(state="scanning"), state="UNAVAIL"), suspended="wait")
    assert state_word(s, "zfs-2.2") == " state: UNAVAIL"
    assert reason(s, "zfs-2.2")[0] == RESILVERING
    # solaris-2009 checks the suspension before the resilver (resilvering comes last).
    assert reason(s, "solaris-2009")[0] == SUSPENDED[0]


def test_the_json_view_says_suspended_too():
    s = dict(snap(TREE_DEAD_DISK, 0, state="UNAVAIL"), suspended="continue")
    doc = json.loads(zpool_status_json(s, "zfs-2.3", "tank", E))
    pool = doc["pools"]["tank"]
    assert (pool["state"], pool["msgid"]) == ("SUSPENDED", "ZFS-8000-JQ")

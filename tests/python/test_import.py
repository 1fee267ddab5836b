"""``ziosim import``: parsers of pasted zpool output, the scenario built from them, the CLI.

* Round trip (needs the core): snapshots of real runs are printed by
  ``ziosim.report.status.zpool_status`` as each release prints them and read back; the
  tree, the states, the log and cache sections (one run has a SLOG mirror, a lone SLOG and
  an L2ARC device), the scan's numbers (within the printed precision) and the guessed
  release (it must print the same scan lines) have to match.
* Hand-written fixtures (tests/python/fixtures/import/), one per format of
  spec/zfs-model.md §8.1 and users.md §4.1–4.2, each with its expected parse.
* Every fixture's scenario passes ziosim's validation; one runs for 5 simulated seconds.
* Error cases: one line naming the file and line, exit 2.
* docs/import.md's example is regenerated here (``UPDATE_SNAPSHOTS=1`` rewrites it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ziosim.errors import ScenarioError
from ziosim.importers import ImportTextError, parse_number, split_sections
from ziosim.importers import scenario as isc
from ziosim.report.nicenum import zfs_nicenum
from ziosim.importers import zpool_iostat, zpool_list, zpool_status
from ziosim.report.releases import RELEASES, at_least
from ziosim.report.status import rebuild_progress, scan_lines, scan_progress

from conftest import ROOT, check_doc_blocks

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

FIX = ROOT / "tests" / "python" / "fixtures" / "import"
REL = "tests/python/fixtures/import"  # as the docs example names the files
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def status_of(text: str, name: str = "status.txt") -> zpool_status.PoolStatus:
    (sec,) = split_sections(name, text)
    (pool,) = zpool_status.parse(sec)
    return pool


def fixture_status(name: str) -> zpool_status.PoolStatus:
    secs = [s for s in split_sections(name, (FIX / name).read_text()) if s.kind == "status"]
    (pool,) = zpool_status.parse(secs[0])
    return pool


def close(parsed: int | None, true: int) -> bool:
    """Within the precision of a printed zfs_nicenum (three significant digits)."""
    if parsed is None:
        return False
    if true < 1024:
        return parsed == true
    return abs(parsed - true) <= 0.0051 * true + 1


# ----------------------------------------------------------------------------- numbers


def test_numbers_as_zfs_prints_them():
    assert parse_number("0") == 0 and parse_number("0B") == 0 and parse_number("512B") == 512
    assert parse_number("4M") == 4 << 20
    assert parse_number("1.21T") == round(1.21 * 2**40)
    assert parse_number("11,4T") == parse_number("11.4T")  # LC_NUMERIC with a decimal comma
    assert parse_number("4,43G") == round(4.43 * 2**30)
    with pytest.raises(ValueError):
        parse_number("1.21 T")


# ----------------------------------------------------------------------------- round trip


def _load(path, stop, interval):
    from ziosim import scenario

    doc = scenario.parse_toml((ROOT / path).read_text(), path)
    doc["scenario"] = {**doc.get("scenario", {}), "report_interval": interval}
    # Cut short as --stop does: later actions are left out, not an error.
    return scenario.from_dict(doc, default_name="x", stop=stop)


SMALL = """
[scenario]
stop = "{stop}"
report_interval = "{interval}"
[zfs]
release = "zfs-2.2"
[devices.hdd]
like = "hdd-7200-sata-2014"
[pool]
name = "small"
allocated = "6G"
[[pool.vdevs]]
type = "mirror"
disks = 2
device = "hdd"
[[pool.vdevs]]
type = "raidz1"
disks = 3
device = "hdd"
names = ["/dev/disk/by-id/ata-X_1", "gptid/0b1c-2d3e", "c0t3d0"]
{actions}
"""
SCRUB_PAUSE_CANCEL = """
[[action]]
at = "1s"
do = "scrub"
[[action]]
at = "4s"
do = "pause-scrub"
[[action]]
at = "7s"
do = "resume-scrub"
[[action]]
at = "60s"
do = "scrub"
[[action]]
at = "62s"
do = "cancel"
"""
FAIL_REPLACE = """
[[action]]
at = "0s"
do = "offline"
disk = "sdb"
[[action]]
at = "2s"
do = "fail"
disk = "gptid/0b1c-2d3e"
[[action]]
at = "4s"
do = "replace"
old = "gptid/0b1c-2d3e"
new = "15227935785154093815"
"""


# A log mirror (sdd sde, "mirror-2": after the two data vdevs), a lone log disk (sdf) and
# an L2ARC device (sdc), which the status snapshots do not hold and the printer appends.
SLOG_CACHE = """
[[pool.log]]
device = "intel-s3700"
count = 2
mirror = true
[[pool.log]]
device = "intel-s3700"
[pool.cache]
device = "samsung-850pro"
"""


def _small(actions, stop, interval):
    from ziosim import scenario

    return scenario.loads(SMALL.format(stop=stop, interval=interval, actions=actions), path="small.toml")


@pytest.fixture(scope="module")
def runs():
    """Snapshots of real runs: (name, pool name, epoch, snapshot) for every snapshot."""
    from ziosim import runner

    scs = {
        "default": _load("scenarios/default.toml", "4m", "30s"),
        "resilver-raidz2-legacy": _load("scenarios/resilver-raidz2-legacy.toml", "2m", "20s"),
        "rebuild-mirror-zfs-2.1": _load("scenarios/rebuild-mirror-zfs-2.1.toml", "3m", "20s"),
        "busy-scrub": _load("cases/busy-scrub/default-delay.toml", "10m", "5m"),
        "small-scrub": _small(SCRUB_PAUSE_CANCEL, "70s", "2s"),
        "small-resilver": _small(FAIL_REPLACE, "40s", "3s"),
        "small-slog-resilver": _small(SLOG_CACHE + FAIL_REPLACE, "20s", "5s"),
    }
    out = []
    for name, sc in scs.items():
        r = runner.run(sc)
        for snap in r["status"]["snapshots"]:
            out.append((name, sc.config["pool"]["name"], r["status"]["epoch_s"], snap, r))
    return out


def _releases_for(snap):
    """Releases that could have printed this snapshot: rebuilds need 2.0, pauses 0.7."""
    ps = snap.get("scan") or {}
    out = list(RELEASES)
    if snap.get("rebuild"):
        out = [r for r in out if at_least(r, "zfs-2.0")]
    if int(ps.get("pass_scrub_pause_s", 0)):
        out = [r for r in out if at_least(r, "zfs-0.7")]
    return out


def _expected_rows(snap, release, results):
    rows = snap["tree"]
    out = []
    for i, r in enumerate(rows):
        name = r["name"]
        interior = i + 1 < len(rows) and rows[i + 1]["depth"] > r["depth"]
        if release == "solaris-2009" and interior and r["depth"] > 0:
            name = re.sub(r"-\d+$", "", name)
        note = r.get("note", "")
        if release == "solaris-2009" and not interior and not note and r.get("scan_processed"):
            # 2009 prints a leaf's repair bytes where later releases print "(resilvering)".
            done = "resilvered" if (snap.get("scan") or {}).get("func") == "resilver" else "repaired"
            note = f"{zfs_nicenum(r['scan_processed'])} {done}"
        out.append((r["depth"], name, r["state"], note))
    pool, leaves = results["pool"], results["leaves"]
    if pool.get("log"):
        # OpenSolaris 2009.06 prints "logs" as a row with the root's state (il:379c004d1f)
        root = rows[0]
        out.append((0, "logs", root["state"], root.get("note", "")) if release == "solaris-2009"
                   else (0, "logs", None, ""))
        for v in pool["log"]:
            if v["type"] != "disk":
                out.append((1, "mirror" if release == "solaris-2009" else v["name"], "ONLINE", ""))
            out += [(2 if v["type"] != "disk" else 1, leaves[i]["name"], "ONLINE", "") for i in v["leaves"]]
    if pool.get("cache"):
        out.append((0, "cache", None, ""))
        out += [(1, leaves[i]["name"], "ONLINE", "") for i in pool["cache"]]
    return out


def _check_scan(parsed, snap, release, now_s):
    ps = snap.get("scan") or {}
    if parsed.sequential:
        vrs = next(v for v in snap["rebuild"] if v["vdev"] == parsed.rebuild_vdev)
        if vrs["state"] != "active":
            assert parsed.state == {"complete": "finished", "canceled": "canceled"}[vrs["state"]]
            return
        scan_rate, issue_rate, _, secs = rebuild_progress(vrs, release)
        assert close(parsed.scanned_bytes, vrs["scanned"]) and close(parsed.issued_bytes, vrs["issued"])
        assert close(parsed.total_bytes, vrs["estimate"]) and close(parsed.processed_bytes, vrs["rebuilt"])
        assert close(parsed.scan_rate_bytes_per_s, scan_rate) and close(parsed.issue_rate_bytes_per_s, issue_rate)
        assert parsed.eta_s == secs
        return
    if ps.get("state", "none") == "none":
        assert (parsed.func, parsed.state, parsed.shape) == ("none", "none", "none")
        return
    assert parsed.func == ps["func"]
    if ps["state"] == "finished":
        assert parsed.state == "finished" and parsed.errors == ps["errors"]
        assert release == "solaris-2009" or close(parsed.processed_bytes, ps["processed"])
        took = ps["end_s"] - ps["start_s"]
        assert parsed.took_s == (took // 60 * 60 if parsed.took_hm else took)
        return
    if ps["state"] == "canceled":
        assert parsed.state == "canceled"
        return
    p = scan_progress(ps, release, now_s)
    paused = release != "solaris-2009" and at_least(release, "zfs-0.7") and int(ps.get("pass_scrub_pause_s", 0))
    assert parsed.state == ("paused" if paused else "scanning")
    assert abs(parsed.done_percent - 100 * p.fraction_done) <= 0.005 + 1e-9
    assert parsed.eta_s == (None if paused else p.secs_left)
    if release == "solaris-2009":
        assert parsed.elapsed_s == (now_s - ps["start_s"]) // 60 * 60
        return
    assert close(parsed.scanned_bytes, p.scanned) and close(parsed.total_bytes, p.total_s)
    assert close(parsed.processed_bytes, ps["processed"])
    if not paused:
        assert close(parsed.scan_rate_bytes_per_s or 0, p.scan_rate)
    if at_least(release, "zfs-0.8"):
        assert close(parsed.issued_bytes, p.issued)
        if not paused:
            assert close(parsed.issue_rate_bytes_per_s or 0, p.issue_rate)
        if at_least(release, "zfs-2.2"):
            assert close(parsed.issue_total_bytes, p.total_i)


@pytest.mark.needs_core
def test_round_trip_every_release_reads_back(runs):
    from ziosim.report.status import zpool_status as render

    seen_shapes, checked, with_classes = set(), 0, 0
    for name, pool, epoch, snap, results in runs:
        now = epoch + snap["t_ns"] // 10**9
        for release in _releases_for(snap):
            text = render(snap, release, pool, epoch, results)
            where = f"{name} at {snap['t_ns'] // 10**9}s as {release}:\n{text}"
            st = status_of(text)
            assert st.name == pool and st.state == snap["state"], where
            assert [(r.depth, r.name, r.state, r.note) for r in st.rows] == _expected_rows(
                snap, release, results), where
            logs, cache = results["pool"]["log"], results["pool"]["cache"]
            assert [v.kind for v in st.vdevs_of("logs")] == [v["type"] for v in logs], where
            assert [leaf.name for v in st.vdevs_of("logs") for leaf in v.leaves()] == [
                results["leaves"][i]["name"] for v in logs for i in v["leaves"]], where
            assert [v.name for v in st.vdevs_of("cache")] == [results["leaves"][i]["name"] for i in cache], where
            with_classes += bool(logs and cache)
            assert all(close(r.read, t.get("read", 0)) and close(r.cksum, t.get("cksum", 0))
                       for r, t in zip(st.rows, snap["tree"])), where
            leaves = [leaf.name for leaf in st.root.leaves()]
            assert leaves == [r["name"] for i, r in enumerate(snap["tree"]) if r["depth"] > 0 and not (
                i + 1 < len(snap["tree"]) and snap["tree"][i + 1]["depth"] > r["depth"])], where
            printed = scan_lines(snap, release, now)
            assert len(st.scans) == printed.count("scan:") + printed.count("scrub:"), where
            for s in st.scans:
                _check_scan(s, snap, release, now)
                seen_shapes.add((s.shape, s.state))
            for s in st.scans:  # the format alone never rules out the release that printed it
                assert release in zpool_status.candidate_releases(s)[0], where
            guess = zpool_status.guess_release(st)
            assert scan_lines(snap, guess.release, now) == printed, f"guessed {guess.release}; {where}"
            checked += 1
    assert checked > 300 and with_classes > 30
    # every printed form was met at least once
    assert {("2009", "scanning"), ("legacy", "scanning"), ("legacy", "paused"), ("issued", "scanning"),
            ("issued", "paused"), ("rebuild", "scanning"), ("slash", "scanning"), ("slash", "paused"),
            ("finished", "finished"), ("2009", "finished"), ("canceled", "canceled"), ("2009", "canceled"),
            ("none", "none")} <= seen_shapes, seen_shapes


@pytest.mark.needs_core
def test_round_trip_guess_per_platform(runs):
    """The legacy format names its platform: c0t0d0 reads as illumos, gptid as FreeBSD
    (8-space continuation lines), sdX as ZoL."""
    from ziosim.report.status import zpool_status as render

    name, pool, epoch, snap, _ = next(r for r in runs if r[0] == "resilver-raidz2-legacy"
                                      and (r[3].get("scan") or {}).get("state") == "scanning")
    assert zpool_status.guess_release(status_of(render(snap, "illumos-2014", pool, epoch))).release == "illumos-2014"
    assert zpool_status.guess_release(status_of(render(snap, "freebsd-9", pool, epoch))).release == "freebsd-9"
    assert zpool_status.guess_release(status_of(render(snap, "zfs-0.7", pool, epoch))).release == "zfs-0.7"


# ----------------------------------------------------------------------------- fixtures

# file -> (pool, state, guessed release, [(vdev kind, leaves)], classes, scan fields)
GiB, TiB = 1 << 30, 1 << 40
FIXTURES = {
    "solaris-2009-scrub.txt": (
        "tank", "ONLINE", "solaris-2009",
        [("mirror", ["c1t0d0", "c1t1d0"]), ("mirror", ["c1t2d0", "c1t3d0"])], [],
        dict(func="scrub", state="scanning", shape="2009", done_percent=23.45, eta_s=3 * 3600 + 55 * 60,
             elapsed_s=72 * 60)),
    "zol-0.6.5-scrub.txt": (
        "data", "ONLINE", "zfs-0.6.5",
        [("mirror", ["sda", "sdb"]), ("mirror", ["sdc", "sdd"])], [],
        dict(func="scrub", state="scanning", shape="legacy", indent="    ", scanned_bytes=1.21 * TiB,
             total_bytes=3.56 * TiB, scan_rate_bytes_per_s=85.3 * 2**20, processed_bytes=0, done_percent=33.99,
             eta="8h1m", eta_s=8 * 3600 + 60, nicebytes=False)),
    "illumos-2014-resilver.txt": (
        "tank", "DEGRADED", "illumos-2014",
        [("raidz2", ["c0t0d0", "c0t1d0", "c0t2d0", "c0t6d0", "c0t3d0", "c0t4d0", "c0t5d0"])], [],
        dict(func="resilver", state="scanning", shape="legacy", processed_bytes=301 * GiB, done_percent=33.99,
             since="Tue Mar  7 10:02:11 2017")),
    "freebsd-gptid-scrub.txt": (
        "tank", "ONLINE", "freebsd-9",
        [("raidz2", [f"gptid/{p}-1b2c-11e3-9c4f-001b21a2b3c4" for p in
                     ("6a2b7d4e", "6b3c8e5f", "6c4d9f60", "6d5ea071", "6e6fb182", "6f70c293")])], [],
        dict(func="scrub", state="scanning", shape="legacy", indent=" " * 8, scanned_bytes=1.5 * TiB,
             total_bytes=2.45 * TiB, done_percent=61.22, eta_s=2 * 3600 + 8 * 60)),
    "zol-0.6-decimal-comma.txt": (
        "rpool", "ONLINE", "zfs-0.6.5",
        [("mirror", ["ata-Samsung_SSD_840_EVO_500GB_S1DHNSAD812345K-part2",
                     "ata-Samsung_SSD_840_EVO_500GB_S1DHNSAD898765A-part2"])], [],
        dict(func="scrub", scanned_bytes=4.43 * GiB, total_bytes=282 * GiB, scan_rate_bytes_per_s=85.3 * 2**20,
             done_percent=1.57, eta_s=55 * 60)),
    "zol-0.7-raidz2-replacing.txt": (
        "tank", "DEGRADED", "zfs-0.7",
        [("raidz2", ["15227935785154093815", "sdg", "sdb", "sdc", "sdd", "sde", "sdf"])], [],
        dict(func="resilver", shape="legacy", indent="\t", scanned_bytes=2.18 * TiB, total_bytes=10.4 * TiB,
             processed_bytes=361 * GiB, done_percent=20.96, eta_s=5 * 3600 + 48 * 60)),
    "zfs-0.8-decimal-comma.txt": (
        "backup", "ONLINE", "zfs-0.8",
        [("raidz1", ["sda", "sdb", "sdc", "sdd"])], [],
        dict(func="scrub", shape="issued", scanned_bytes=5.12 * TiB, issued_bytes=1.87 * TiB,
             total_bytes=11.4 * TiB, scan_rate_bytes_per_s=1.02 * GiB, issue_rate_bytes_per_s=381 * 2**20,
             done_percent=16.40, days=0, eta_s=7 * 3600 + 17 * 60 + 8, nicebytes=True)),
    "zfs-2.0-rebuild.txt": (
        "tank", "DEGRADED", "zfs-2.1",
        [("mirror", ["sda", "sdb", "sde"]), ("mirror", ["sdc", "sdd"])], [],
        dict(func="resilver", shape="rebuild", rebuild_vdev="mirror-0", scanned_bytes=412 * GiB,
             issued_bytes=398 * GiB, total_bytes=3.51 * TiB, issue_rate_bytes_per_s=1.06 * GiB,
             processed_bytes=398 * GiB, done_percent=11.46, eta_s=48 * 60 + 13, hms=True)),
    "zfs-2.1-spare-days.txt": (
        "vault", "DEGRADED", "zfs-2.1",
        [("raidz2", [f"wwn-0x5000c500a1b2c30{i}" for i in (1, 2, 3, 9, 4, 5, 6, 7, 8)])],
        [("spares", ["wwn-0x5000c500a1b2c309"])],
        dict(func="resilver", shape="issued", total_bytes=38.2 * TiB, processed_bytes=385 * GiB, days=4,
             eta="4 days 03:33:33", eta_s=4 * 86400 + 3 * 3600 + 33 * 60 + 33)),
    "zfs-2.2-classes.txt": (
        "tank", "ONLINE", "zfs-2.2",
        [("raidz2", [f"ata-WDC_WD80EFZX-68UW8N0_VK0A1B2{c}" for c in "CDEFGH"])],
        [("special", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part3", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part3"]),
         ("logs", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part1", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part1"]),
         ("cache", ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part2"]),
         ("spares", ["ata-WDC_WD80EFZX-68UW8N0_VK0A1B2J"])],
        dict(func="scrub", shape="slash", scanned_bytes=6.02 * TiB, total_bytes=15.7 * TiB,
             issued_bytes=2.11 * TiB, issue_total_bytes=15.7 * TiB, scan_rate_bytes_per_s=1.2 * GiB,
             issue_rate_bytes_per_s=431 * 2**20, done_percent=13.44, eta_s=9 * 3600 + 11 * 60 + 2)),
    "zfs-2.2-paused.txt": (
        "tank", "ONLINE", "zfs-2.2",
        [("mirror", ["sda", "sdb"]), ("mirror", ["sdc", "sdd"])], [],
        dict(func="scrub", state="paused", shape="slash", started="Sat Oct 14 00:00:01 2023",
             scan_rate_bytes_per_s=None, eta_s=None, done_percent=20.29)),
    "zfs-2.2-faulted.txt": (
        "tank", "DEGRADED", "zfs-2.2",
        [("raidz1", ["sda", "sdb", "sdc"])], [],
        dict(func="scrub", state="finished", shape="finished", took="14:05:18", took_s=14 * 3600 + 5 * 60 + 18,
             processed_bytes=0, errors=0, hms=True)),
}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_parses_as_expected(name):
    pool, state, release, vdevs, classes, scan = FIXTURES[name]
    st = fixture_status(name)
    assert (st.name, st.state) == (pool, state)
    assert [(v.kind, [leaf.name for leaf in v.leaves()]) for v in st.vdevs] == vdevs
    assert [(label, [leaf.name for v in vs for leaf in v.leaves()]) for label, vs in st.classes] == classes
    (s,) = st.scans
    for key, want in scan.items():
        got = getattr(s, key)
        if isinstance(want, float) and key.endswith(("_bytes", "_per_s")):
            assert close(got, round(want)), (key, got, want)
        else:
            assert got == want, (key, got, want)
    assert zpool_status.guess_release(st).release == release
    assert st.errors == "No known data errors"


def test_fixture_tree_states_and_notes():
    st = fixture_status("zol-0.7-raidz2-replacing.txt")
    (raidz,) = st.vdevs
    rep = raidz.children[0]
    assert (rep.kind, rep.name, rep.state) == ("replacing", "replacing-0", "DEGRADED")
    old, new = rep.children
    assert (old.name, old.state, old.note) == ("15227935785154093815", "UNAVAIL", "was /dev/sda1")
    assert (new.name, new.state, new.resilvering) == ("sdg", "ONLINE", True)
    spare = fixture_status("zfs-2.1-spare-days.txt").vdevs[0].children[2]
    assert (spare.kind, spare.children[0].state, spare.children[0].read, spare.children[0].write) == (
        "spare", "FAULTED", 12, 347)
    (inuse,) = fixture_status("zfs-2.1-spare-days.txt").vdevs_of("spares")
    assert (inuse.state, inuse.read, inuse.note) == ("INUSE", None, "currently in use")
    logs = fixture_status("zfs-2.2-classes.txt").vdevs_of("logs")
    assert [(v.kind, v.name) for v in logs] == [("mirror", "mirror-1")]


def test_zpool_list_columns_of_every_era():
    (old,) = zpool_list.parse(split_sections("l", (FIX / "solaris-2009-scrub.txt").read_text())[1])
    assert (old.name, old.pool.size_bytes, old.pool.alloc_bytes, old.pool.cap_percent, old.pool.frag_percent) == (
        "tank", round(1.81 * TiB), 912 * GiB, 49.0, None)
    (new,) = zpool_list.parse(split_sections("l", (FIX / "zfs-2.2-list-v.txt").read_text())[0])
    assert new.verbose and new.pool.frag_percent == 34.0 and new.pool.alloc_bytes == round(15.7 * TiB)
    data = new.section_rows(None)
    assert [(r.name, r.depth) for r in data][:2] == [("raidz2-0", 1), ("ata-WDC_WD80EFZX-68UW8N0_VK0A1B2C", 2)]
    assert data[1].size_bytes == round(7.28 * TiB) and data[1].alloc_bytes is None
    assert [r.name for r in new.section_rows("logs")] == [
        "mirror-1", "nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part1", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part1"]
    (exact,) = zpool_list.parse(split_sections("l", (FIX / "zfs-2.2-faulted.txt").read_text())[1])
    assert exact.parsable and exact.pool.size_bytes == 5999532441600 and exact.pool.frag_percent == 12
    (fbsd,) = zpool_list.parse(split_sections("l", (FIX / "freebsd-gptid-scrub.txt").read_text())[1])
    assert fbsd.rows[0].size_bytes == round(10.9 * TiB) and fbsd.rows[1].size_bytes is None


def test_zpool_iostat_last_sample():
    (io,) = zpool_iostat.parse(split_sections("i", (FIX / "zfs-2.2-iostat-v.txt").read_text())[0])
    assert io.samples == 2
    assert (io.pool.read_ops_per_s, io.pool.write_ops_per_s) == (312, 145)
    assert close(io.pool.read_bytes_per_s, round(38.9 * 2**20))
    assert [r.name[-1] for r in io.data_leaves()] == list("CDEFGH")
    assert io.data_leaves()[2].read_ops_per_s == 53


def test_scan_lines_not_in_the_fixtures():
    tab = "\t"
    head = "  pool: tank\n state: ONLINE\n"
    tail = (f"config:\n\n{tab}NAME        STATE     READ WRITE CKSUM\n{tab}tank        ONLINE       0     0     0\n"
            f"{tab}  sda       ONLINE       0     0     0\n\nerrors: No known data errors\n")
    slow = status_of(head + "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
                     "    6.02T scanned out of 10.4T at 1000/s, (scan is slow, no estimated time)\n"
                     "    0 repaired, 57.88% done\n" + tail).scans[0]
    assert (slow.eta, slow.eta_s, slow.scan_rate_bytes_per_s) == ("(scan is slow, no estimated time)", None, 1000)
    paused = status_of(head + "  scan: scrub paused since Sat Oct 14 00:50:01 2023\n"
                       "\tscrub started on   Sat Oct 14 00:00:01 2023\n\t6.02T scanned out of 10.4T\n"
                       "\t0B repaired, 57.88% done\n" + tail)
    assert paused.scans[0].state == "paused" and zpool_status.guess_release(paused).release == "zfs-0.7"
    two = status_of(head + "  scan: scrub in progress since Sat Oct 14 00:56:41 2023\n"
                    "\t6.02T / 10.4T scanned at 1.20G/s, 0B / 10.4T issued\n"
                    "\t0B repaired, 0.00% done, no estimated completion time\n"
                    "  scan: resilvered (mirror-0) 3.51T in 00:55:10 with 0 errors on Sat Oct 14 00:55:11 2023\n"
                    + tail)
    assert [(s.shape, s.state, s.rebuild_vdev) for s in two.scans] == [
        ("slash", "scanning", None), ("finished", "finished", "mirror-0")]
    none = status_of(head + "  scan: none requested\n" + tail)
    assert zpool_status.guess_release(none).candidates[-1] == "zfs-0.8"
    assert zpool_status.guess_release(status_of(head + tail)).no_scan_line


def test_lines_read_past_on_purpose():
    """-T d time stamps, status/action prose, the -v list of damaged files, a class
    label's trailing TAB and a tree whose leading TAB the paste turned into spaces."""
    text = ("Sat Oct 14 05:36:09 UTC 2023\n"
            "  pool: tank\n"
            " state: ONLINE\n"
            "status: One or more devices has experienced an error resulting in data\n"
            "\tcorruption.  Applications may be affected.\n"
            "action: Restore the file in question if possible.\n"
            "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A\n"
            "config:\n\n"
            "        NAME        STATE     READ WRITE CKSUM\n"
            "        tank        ONLINE       0     0     0\n"
            "          mirror-0  ONLINE       0     0     0\n"
            "            sda     ONLINE       0     0    2\n"
            "            sdb     ONLINE       0     0    2\n"
            "        logs\t\n"
            "          nvme0n1   ONLINE       0     0     0\n\n"
            "errors: Permanent errors have been detected in the following files:\n\n"
            "        /tank/vm/disk0.raw\n")
    st = status_of(text)
    assert [(v.kind, [leaf.name for leaf in v.leaves()]) for v in st.vdevs] == [("mirror", ["sda", "sdb"])]
    assert [leaf.cksum for leaf in st.vdevs[0].children] == [2, 2]
    assert [(lab, [v.name for v in vs]) for lab, vs in st.classes] == [("logs", ["nvme0n1"])]
    assert st.errors.startswith("Permanent errors") and st.scans == ()
    assert st.see == "https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A"


# ----------------------------------------------------------------------------- errors


def _error(text, name="bad.txt", pool=None):
    with pytest.raises(ScenarioError) as e:
        isc.read_inputs([(name, text)], pool=pool)
    assert "\n" not in e.value.line
    return e.value.line


def test_errors_name_the_file_line_and_what_was_expected():
    assert _error((FIX / "bad-garbage.txt").read_text()) == (
        'bad.txt:1: "Hello," — expected the output of zpool status, zpool list, zpool iostat -v or '
        "iostat -x, or a tunables file (docs/import.md)")
    assert _error((FIX / "bad-truncated.txt").read_text()).startswith(
        'bad.txt:13: expected the "errors:" line that ends the status of tank')
    assert _error((FIX / "bad-two-pools.txt").read_text()) == (
        "bad.txt:14: a second pool (backup, tank) — allowed: one pool per scenario; pick one with --pool NAME")
    assert isc.read_inputs([("two", (FIX / "bad-two-pools.txt").read_text())], pool="backup").status.name == "backup"
    assert _error((FIX / "bad-two-pools.txt").read_text(), pool="tnak").startswith('--pool: "tnak" — allowed')
    assert _error("all pools are healthy\n").startswith('bad.txt:1: "all pools are healthy" — expected a pool')
    assert _error("").startswith("bad.txt:1: expected the output of zpool status")


GOOD = ("  pool: tank\n"
        " state: ONLINE\n"
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T / 10.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s\n"
        "\t0B repaired, 20.29% done, 05:36:08 to go\n"
        "config:\n"
        "\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        ONLINE       0     0     0\n"
        "\t  raidz2-0  ONLINE       0     0     0\n"
        "\t    sda     ONLINE       0     0     0\n"
        "\t    sdb     ONLINE       0     0     0\n"
        "\t    sdc     ONLINE       0     0     0\n"
        "\n"
        "errors: No known data errors\n")


def test_error_examples_in_the_docs_are_what_ziosim_prints():
    block = DOC.read_text().split("Anything else is an error")[1].split("```")[1]
    shown = [ln for ln in block.splitlines() if ln.startswith("error: ")]
    made = []
    for bad in ("bad-garbage.txt", "bad-truncated.txt", "bad-two-pools.txt"):
        with pytest.raises(ScenarioError) as e:
            isc.read_inputs([("status.txt", (FIX / bad).read_text())])
        made.append(f"error: {e.value.line}")
    assert shown == made


@pytest.mark.parametrize(("cut", "line", "expected"), [
    (lambda t: t.replace("\t    sdc     ONLINE       0     0     0\n", ""), 13, "at least 3 disks under raidz2-0"),
    (lambda t: re.sub(r"\t    sd[abc] .*\n", "", t), 11, "the disks of raidz2-0 (line 10)"),
    (lambda t: t.replace("\t    sdb", "\t        sdb"), 12, "a row indented one level (2 spaces) below sda"),
    (lambda t: t.replace("sdb     ONLINE", "sdb     HAPPY "), 12, "STATE one of ONLINE"),
    (lambda t: t.replace("scanned at 1.20G/s", "gescannt mit 1.20G/s"), 4, "a scan progress line"),
    (lambda t: t.replace("\t0B repaired, 20.29% done, 05:36:08 to go\n", ""), 5, "the second progress line"),
    (lambda t: t.replace(" state: ONLINE", "  what: ONLINE"), 2, "a zpool status line (pool:"),
    (lambda t: t.replace("\ttank        ONLINE", "\tpool        ONLINE"), 9, "the pool's own row (tank)"),
    (lambda t: t.replace("NAME        STATE", "NAME        HEALTH"), 8, "the NAME STATE READ WRITE CKSUM header"),
])
def test_truncated_or_unreadable_status(cut, line, expected):
    assert isc.read_inputs([("ok.txt", GOOD)]).status.name == "tank"  # the uncut text reads
    msg = _error(cut(GOOD))
    assert msg.startswith(f"bad.txt:{line}:") and expected in msg, msg


@pytest.mark.needs_core
def test_damaged_pastes_give_one_line_errors_or_valid_scenarios(presets):
    """Every fixture with each line in turn deleted, cut in half, its TABs turned into
    spaces, its zeros into nines, and the text truncated there: the importer either
    refuses on one line or builds a scenario that validates — never anything else."""
    from ziosim import scenario

    outcomes = {"valid": 0, "refused": 0}
    for f in sorted(FIX.glob("*.txt")):
        lines = f.read_text().splitlines(keepends=True)
        for i, line in enumerate(lines):
            for changed in ([], [line[: len(line) // 2] + "\n"], [line.replace("\t", "  ")],
                            [line.replace("0", "9")]):
                for variant in (lines[:i] + changed + lines[i + 1:], lines[:i]):
                    try:
                        text = isc.build(isc.read_inputs([(f.name, "".join(variant))]), isc.Options(), presets)
                    except ScenarioError as e:
                        assert "\n" not in e.line
                        outcomes["refused"] += 1
                        continue
                    scenario.loads(text, path="x.toml")
                    outcomes["valid"] += 1
    assert outcomes["valid"] > 300 and outcomes["refused"] > 300, outcomes


def test_zpool_list_of_another_pool_is_refused():
    text = (FIX / "zfs-2.2-paused.txt").read_text()
    other = "NAME   SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT\n" \
            "other  1.81T   912G   944G        -         -    10%    49%  1.00x    ONLINE  -\n"
    with pytest.raises(ScenarioError, match="zpool list has no pool tank"):
        isc.read_inputs([("s", text), ("l", other)])


def test_a_draid_geometry_zpool_create_refuses_is_refused_with_the_line():
    # dRAID is imported (test_import_draid.py); 2 data + 1 parity do not fit 2 children.
    t = (FIX / "zfs-2.2-paused.txt").read_text().replace("mirror-0", "draid1:2d:2c:0s-0")
    with pytest.raises(ScenarioError) as e:
        isc.read_inputs([("s", t)])
    assert e.value.line == ('s:11: "draid1:2d:2c:0s-0" — expected a dRAID geometry zpool create accepts: '
                            "1 ≤ data and data + parity ≤ children − spares, not 2 + 1 and 2 − 0")


def test_import_text_error_is_one_line():
    e = ImportTextError("f.txt", 3, "\tfoo bar", "something")
    assert e.line == 'f.txt:3: "foo bar" — expected something'


# ----------------------------------------------------------------------------- scenarios


@pytest.fixture(scope="module")
def presets():
    pytest.importorskip("ziosim._core")
    from ziosim import _native

    return _native.presets()


def _build(names, presets, **opts):
    imp = isc.read_inputs([(f"{REL}/{n}", (FIX / n).read_text()) for n in names])
    return isc.build(imp, isc.Options(**opts), presets)


SCENARIO_INPUTS = [[n] for n in sorted(FIXTURES) if n != "zfs-2.2-classes.txt"] + [
    ["zfs-2.2-classes.txt", "zfs-2.2-list-v.txt", "zfs-2.2-iostat-v.txt"]]


@pytest.mark.needs_core
@pytest.mark.parametrize("names", SCENARIO_INPUTS, ids=lambda n: n[0])
def test_every_fixture_makes_a_valid_scenario(names, presets):
    from ziosim import scenario

    text = _build(names, presets)
    sc = scenario.loads(text, path="imported.toml")
    st = fixture_status(names[0])
    assert sc.config["pool"]["name"] == st.name
    assert sc.release == zpool_status.guess_release(st).release
    header = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert any("Assumed — check each" in ln for ln in header)
    for word in ("device model", "recordsize", "ram", "workload"):
        assert any(ln.startswith(f"#   {word}") for ln in header), word
    names_in_pool = [d["name"] for v in sc.config["pool"]["vdevs"] for d in v["disks"]]
    active = [s for s in st.scans if s.active]
    assert sc.config["stop_on_scan_done"] == bool(active)
    if active:
        assert any("real total" in ln or "duration is unknown" in ln for ln in header)
    for a in sc.config["actions"]:
        assert a["at_ns"] == 0
        if a["do"] in ("fail", "offline"):
            assert a["disk"] in names_in_pool


@pytest.mark.needs_core
def test_scenario_decisions(presets):
    from ziosim import scenario

    sc = scenario.loads(_build(["illumos-2014-resilver.txt"], presets), path="x.toml")
    assert [(a["do"], a.get("disk") or a.get("old"), a.get("new")) for a in sc.config["actions"]] == [
        ("fail", "c0t2d0", None), ("replace", "c0t2d0", "c0t6d0")]
    assert sc.config["pool"]["allocated_bytes"] == pytest.approx(3.56 * TiB * 4 / 6, rel=0.01)  # parity out
    rebuild = scenario.loads(_build(["zfs-2.0-rebuild.txt"], presets), path="x.toml")
    assert [a.get("sequential") for a in rebuild.config["actions"]] == [None, True]
    with pytest.raises(ScenarioError, match="counts once per data column"):  # raidz2: pool reads unknown
        _build(SCENARIO_INPUTS[-1], presets, workload_from_iostat=True)
    classes = scenario.loads(_build(SCENARIO_INPUTS[-1], presets), path="x.toml")
    pool = classes.config["pool"]
    assert pool["layout"]["fragmentation"] == 0.6  # FRAG 34 % -> aged
    assert [d["name"] for v in pool["log"] for d in v["disks"]] == [
        "nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part1", "nvme-Samsung_SSD_970_EVO_S4EVNF0M2-part1"]
    assert [d["name"] for d in pool["cache"]] == ["nvme-Samsung_SSD_970_EVO_S4EVNF0M1-part2"]
    assert classes.config["devices"]["hdd"]["capacity_bytes"] == 7454 << 30  # 7.28T disks, whole GiB
    assert classes.config["workloads"] == []
    faulted = scenario.loads(_build(["zfs-2.2-faulted.txt"], presets), path="x.toml")
    assert [(a["do"], a["disk"]) for a in faulted.config["actions"]] == [("fail", "sdb")]
    assert faulted.config["stop_on_scan_done"] is False
    assert faulted.config["devices"]["hdd"]["capacity_bytes"] == 5999532441600 // 3 // 4096 * 4096  # -p: exact
    other = scenario.loads(_build(["zol-0.6.5-scrub.txt"], presets, release="zfs-0.7", device="wd20efrx"),
                           path="x.toml")
    assert other.release == "zfs-0.7" and other.config["devices"]["hdd"]["rpm"] == 5400


@pytest.mark.needs_core
def test_an_imported_scenario_runs(presets, tmp_path):
    from ziosim import runner, scenario

    path = tmp_path / "resilver.toml"
    path.write_text(_build(["zol-0.7-raidz2-replacing.txt"], presets))
    r = runner.run(scenario.load(path, stop="5s"))
    assert r["sim_time_ns"] == 5 * 10**9
    assert r["scan"]["func"] == "resilver" and r["scan"]["examined_bytes"] > 0


TWO_RESILVERING = """\
  pool: tank
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
\tcontinue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Sat Oct 14 00:00:11 2023
\t12.0G / 12.0G scanned, 2.43G / 12.0G issued at 965M/s
\t1.89G resilvered, 20.25% done, 00:00:02 to go
config:

\tNAME             STATE     READ WRITE CKSUM
\ttank             DEGRADED     0     0     0
\t  raidz2-0       DEGRADED     0     0     0
\t    sda          ONLINE       0     0     0
\t    replacing-1  DEGRADED     0     0     0
\t      sdb        UNAVAIL      0     0     0  cannot open
\t      sdg        ONLINE       0     0     0  (resilvering)
\t    replacing-2  DEGRADED     0     0     0
\t      sdc        UNAVAIL      0     0     0  cannot open
\t      sdh        ONLINE       0     0     0  (resilvering)
\t    sdd          ONLINE       0     0     0
\t    sde          ONLINE       0     0     0
\t    sdf          ONLINE       0     0     0

errors: No known data errors
"""


@pytest.mark.needs_core
def test_a_pool_resilvering_two_disks_imports_as_one_resilver(presets, tmp_path):
    """Both replaces are written at 0s; the resilver starts three txgs on (the attach's
    dtl_max_txg), so the second joins the first, as the one scan of the real pool did
    (QA pass 3, finding 3): not two resilvers one after the other."""
    from ziosim import runner, scenario

    imp = isc.read_inputs([("two.txt", TWO_RESILVERING)])
    path = tmp_path / "two.toml"
    path.write_text(isc.build(imp, isc.Options(), presets))
    r = runner.run(scenario.load(path))
    assert [(s["func"], s["state"]) for s in r["scans"]] == [("resilver", "finished")]
    written = {lf["name"]: lf["classes"].get("async_write", {}).get("bytes", 0) for lf in r["leaves"]}
    assert written["sdg"] > 0 and written["sdh"] > 0.9 * written["sdg"]


# ----------------------------------------------------------------------------- CLI


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, ["import", *[str(a) for a in args]], env=ENV)


@pytest.mark.needs_core
def test_cli_prints_toml_and_logs_one_line():
    r = _invoke(FIX / "zfs-2.0-rebuild.txt")
    assert r.exit_code == 0, r.stderr
    doc = tomllib.loads(r.stdout)
    assert doc["zfs"]["release"] == "zfs-2.1" and doc["scenario"]["stop"] == "scan-done"
    (log,) = r.stderr.splitlines()
    assert log == ("scenario on stdout — pool tank, release zfs-2.1, 4 disks, 2 actions; check the assumptions "
                   "in its # header")


@pytest.mark.needs_core
def test_cli_predict_checks_stop_before_writing(tmp_path):
    # A bad --stop is refused, naming the option, before the scenario is written.
    out = tmp_path / "x.toml"
    r = _invoke(FIX / "zol-0.6.5-scrub.txt", "--predict", "--stop", "0s", "--out", out)
    assert r.exit_code == 2, r.stderr
    assert r.stderr == 'error: --stop: "0s" — out of range; allowed: more than 0, at most 400d\n'
    assert not out.exists()


@pytest.mark.needs_core
def test_cli_out_writes_the_file(tmp_path):
    out = tmp_path / "s.toml"
    r = _invoke(FIX / "zfs-2.2-classes.txt", FIX / "zfs-2.2-list-v.txt", "--out", out, "--release", "zfs-2.3")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "" and tomllib.loads(out.read_text())["zfs"]["release"] == "zfs-2.3"
    # 6 data disks and the special mirror's 2 (log, cache and spare devices are not counted)
    assert r.stderr.startswith(f"wrote {out} — pool tank, release zfs-2.3, 8 disks, 1 action;")
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]  # no temporary file left


@pytest.mark.needs_core
def test_cli_bad_device_names_the_presets():
    r = _invoke(FIX / "zol-0.6.5-scrub.txt", "--device", "wd20efr")
    assert r.exit_code == 2 and r.stdout == ""
    first, hint = r.stderr.splitlines()
    assert first.startswith('error: --device: "wd20efr" — allowed: a preset (') and "wd20efrx" in first
    assert hint == "hint: did you mean wd20efrx?"


@pytest.mark.needs_core
@pytest.mark.parametrize(("args", "start"), [
    (["bad-garbage.txt"], 'error: {F}/bad-garbage.txt:1: "Hello,"'),
    (["bad-truncated.txt"], "error: {F}/bad-truncated.txt:13: expected"),
    (["bad-two-pools.txt"], "error: {F}/bad-two-pools.txt:14: a second pool"),
    (["zfs-2.2-paused.txt", "--release", "zfs-2.4"], 'error: --release: "zfs-2.4" — allowed:'),
    (["zfs-2.2-paused.txt", "--workload-from-iostat"], "error: --workload-from-iostat: no zpool iostat -v"),
    (["zfs-2.2-paused.txt", "--out", "/nonexistent-dir/s.toml"], "error: --out: /nonexistent-dir/s.toml: cannot"),
    (["no-such-file.txt"], "error: {F}/no-such-file.txt: no such file"),
])
def test_cli_input_errors_exit_2_on_one_line(args, start):
    r = _invoke(*[FIX / a if a.endswith(".txt") else a for a in args])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines()[0].startswith(start.format(F=FIX)), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.needs_core
def test_cli_entry_point_prints_no_traceback():
    p = subprocess.run([sys.executable, "-m", "ziosim", "import", str(FIX / "bad-garbage.txt")],
                       capture_output=True, text=True, env={**os.environ, **ENV, "PYTHONPATH": str(ROOT / "python")})
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


# ----------------------------------------------------------------------------- docs/import.md

DOC = ROOT / "docs" / "import.md"
DOC_INPUTS = ["zfs-2.2-classes.txt", "zfs-2.2-list-v.txt"]


@pytest.mark.needs_core
def test_doc_example_is_current(presets):
    expected = {
        "import-input": "".join(f"$ cat {REL}/{n}\n" + (FIX / n).read_text() for n in DOC_INPUTS),
        "import-output": f"$ ziosim import {' '.join(f'{REL}/{n}' for n in DOC_INPUTS)}\n"
        + _build(DOC_INPUTS, presets),
    }
    check_doc_blocks(DOC, "example", expected, UPDATE)


@pytest.mark.needs_core
def test_workload_from_zpool_iostat_of_a_pool_without_raidz_is_its_pool_row(presets):
    """ziosim's own zpool status and zpool iostat -v of a one-disk run: the imported
    workload reads at the pool row's rate and mean size (the disk's reads are the pool's)."""
    from ziosim import runner, scenario
    from ziosim.report import render_text

    sc = scenario.load(ROOT / "scenarios" / "one-disk-qd1.toml", stop="20s")
    text = render_text(runner.run(sc), runner.meta(sc), views=("status", "iostat"))
    text = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("# ziosim")
                   and not ln.startswith("# simulated"))
    pool_rows = [ln.split() for ln in text.splitlines() if ln.startswith("tank ")]
    imp = isc.read_inputs([("run.txt", text)])
    w = scenario.loads(isc.build(imp, isc.Options(workload_from_iostat=True), presets),
                       path="x.toml").config["workloads"][0]
    assert w["rate_per_s"] == int(pool_rows[-1][3])  # the last sample's read ops/s
    assert w["sizes"] == [[4096, 1.0]]  # 313K/s over 78 reads/s: the 4K reads


# ----------------------------------------------------------------------------- Windows and locales


@pytest.mark.needs_core
def test_a_byte_order_mark_is_no_part_of_the_output(tmp_path):
    """Notepad saves UTF-8 with a BOM; the first line used to be refused as not zpool output."""
    plain = (FIX / "zfs-2.1-small-resilver.txt").read_bytes()
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + plain)
    r = _invoke(bom)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.replace(str(bom), "X") == _invoke(FIX / "zfs-2.1-small-resilver.txt").stdout.replace(
        str(FIX / "zfs-2.1-small-resilver.txt"), "X")
    # Two such files pasted together: a BOM at the start of a later line goes too.
    (sec,) = split_sections("two.txt", "\ufeff" + plain.decode() + "\ufeff")
    assert sec.kind == "status" and not any("\ufeff" in ln.text for ln in sec.lines)


@pytest.mark.needs_core
def test_a_start_date_in_another_locale_is_noted_not_dropped_unseen(presets):
    """`since Sa Okt 14 …` (LC_TIME=de_DE) is no date ziosim reads: the scenario has no
    start_time, and its header says so (it used to leave it out silently)."""
    text = (FIX / "zfs-2.1-small-resilver.txt").read_text().replace(
        "since Sat Oct 14 00:00:01 2023", "since Sa Okt 14 00:00:01 2023")
    out = isc.build(isc.read_inputs([("de.txt", text)]), isc.Options(), presets)
    assert "start_time" not in tomllib.loads(out)["scenario"]
    (note,) = [ln for ln in out.splitlines() if "start_time" in ln]
    assert note == ('#   start_time left out: the scan\'s start "Sa Okt 14 00:00:01 2023" is no C-locale date (as in '
                    '"Sat Oct 14 00:00:01 2023"), so simulated dates start at 2023-10-14 00:00:01; set '
                    'scenario.start_time = "YYYY-MM-DD HH:MM:SS" to the real start for zpool status dates to line up')
    assert note in out.split("# Assumed — check each against the real system:")[1]
    c = isc.build(isc.read_inputs([("c.txt", text.replace("Sa Okt", "Sat Oct"))]), isc.Options(), presets)
    assert 'start_time = "2023-10-14 00:00:01"' in c and "start_time left out" not in c


def _degraded(names: list[str], see: str) -> str:
    rows = "".join(f"\t    {n:<10}  {'UNAVAIL' if i == 0 else 'ONLINE ':<7}      0     0     0\n"
                   for i, n in enumerate(names))
    return ("  pool: tank\n state: DEGRADED\nstatus: One or more devices could not be opened.\n"
            f"action: Attach the missing device and online it using 'zpool online'.\n   see: {see}ZFS-8000-2Q\n"
            "  scan: none requested\nconfig:\n\n\tNAME          STATE     READ WRITE CKSUM\n"
            "\ttank          DEGRADED     0     0     0\n\t  mirror-0    DEGRADED     0     0     0\n"
            + rows + "\nerrors: No known data errors\n")


def test_freebsd_prints_illumos_see_url_and_the_names_decide():
    """QA pass 3 #6: FreeBSD's zpool prints illumos's http://illumos.org/msg/ (9.1 on; 9.0
    http://www.sun.com/msg/), never https://www.illumos.org/msg/: the URL says "illumos or
    FreeBSD" and the device names choose."""
    for see in ("http://illumos.org/msg/", "http://www.sun.com/msg/"):
        plat, why = zpool_status.platform_hint(status_of(_degraded(["ada1", "ada2"], see)))
        assert plat == "freebsd" and "ada1" in why, (see, why)
        assert zpool_status.platform_hint(status_of(_degraded(["c0t1d0", "c0t2d0"], see)))[0] == "illumos"
        assert zpool_status.platform_hint(status_of(_degraded(["disk1", "disk2"], see)))[0] == "illumos"
    st = status_of(_degraded(["ada1", "ada2"], "http://illumos.org/msg/"))
    assert zpool_status.guess_release(st).release == "freebsd-9"


RAIDZ_SCEN = """[scenario]
stop = "4s"
report_interval = "2s"
[zfs]
release = "zfs-2.2"
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "100G"
[pool]
name = "tank"
allocated = "{alloc}"
vdevs = [{{ type = "{kind}", disks = {disks}, device = "hdd" }}]
[[action]]
at = "0s"
do = "scrub"
"""


@pytest.mark.needs_core
@pytest.mark.parametrize(("kind", "disks", "alloc"), [("raidz3", 8, "200G"), ("raidz1", 4, "100G"),
                                                      ("raidz2", 6, "150G"), ("raidz2", 7, "150G")])
def test_a_raidz_scan_total_reads_back_as_the_same_pool(presets, kind, disks, alloc):
    # The scan's total (vs_alloc) holds parity and the raid-z padding of each block: 56
    # sectors for a 128K record on an 8-wide raidz3 at ashift 12, not 32 × 8/5. The import
    # takes both out, as the layout puts them in, so the imported pool scans what the real
    # one did — not 10 % more.
    from ziosim import runner, scenario
    from ziosim.report.status import zpool_status

    first = runner.run(scenario.loads(RAIDZ_SCEN.format(kind=kind, disks=disks, alloc=alloc), path="x.toml"))
    snap = first["status"]["snapshots"][-1]
    text = zpool_status(snap, "zfs-2.2", "tank", first["status"]["epoch_s"], first)
    toml = isc.build(isc.read_inputs([("status.txt", text)]), isc.Options(), presets)
    text2 = re.sub(r'^stop = ".*"', 'stop = "4s"', toml, flags=re.M)
    again = runner.run(scenario.loads(text2, path="y.toml"))
    totals = [s["scan"]["to_examine"] for s in (snap, again["status"]["snapshots"][-1])]
    assert totals[1] == pytest.approx(totals[0], rel=0.005), (totals, toml)

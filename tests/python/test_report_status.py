"""``zpool status`` from scan snapshots, every era, character for character.

The expected texts below were written by hand from the C format strings of
cmd/zpool/zpool_main.c (il:0a586cea3c ``print_scrub_status``; il:7a09f97bc0 and
ZM@zfs-0.6.5/0.7.13/0.8.6 ``print_scan_status``; ZM@zfs-2.0.0/2.2.0
``print_scan_scrub_resilver_status`` and ``print_rebuild_status_impl``) and the worked
examples of spec/zfs-model.md §8.1 — not produced by running the printer. The numbers are
chosen so each one can be checked with a calculator; the comments give the arithmetic.
"""

from __future__ import annotations

import copy

import pytest
from ziosim.report import render_text
from ziosim.report.status import (
    ctime_utc,
    scan_era,
    scan_lines,
    scan_progress,
    secs_to_dhms,
    zpool_status,
)

E = 1697241601          # Sat Oct 14 00:00:01 2023 UTC, the default scenario start
GiB, TiB, MiB = 1 << 30, 1 << 40, 1 << 20
R431 = 431 * MiB        # 451936256 B/s, prints "431M"
T = R431 * 25303        # 11435343085568 B = 10.40T -> "10.4T"
ISS = R431 * 5135         # issued after 5135 s at exactly 431M/s -> "2.11T"
X = 6619088588144       # examined: 6.020T -> "6.02T"; X // 5135 = 1289014330 -> "1.20G"
NOW_T = 5135            # the snapshot is taken 5135 s after the scan started

LEGACY = ("freebsd-9", "illumos-2012", "illumos-2014", "zfs-0.6.5")


def scan(func="scrub", state="scanning", **kw) -> dict:
    ps = {"func": func, "state": state, "start_s": E, "end_s": 0,
          "to_examine": T, "examined": X, "skipped": 0, "to_process": 0, "processed": 0,
          "errors": 0, "pass_exam": X, "pass_start_s": E, "pass_scrub_pause_s": 0,
          "pass_scrub_spent_paused_s": 0, "pass_issued": ISS, "issued": ISS}
    ps.update(kw)
    return ps


def snap(ps=None, rebuild=None, t_s=NOW_T, state="ONLINE", tree=None) -> dict:
    return {"t_ns": t_s * 10**9, "state": state, "tree": tree or TREE_ONLINE,
            "scan": ps or scan("none", "none"), "rebuild": rebuild}


def lines(ps, release, t_s=NOW_T, rebuild=None) -> str:
    return scan_lines(snap(ps, rebuild, t_s), release, E + t_s)


def row(depth, name, state="ONLINE", note=""):
    return {"depth": depth, "name": name, "state": state, "read": 0, "write": 0, "cksum": 0,
            "note": note}


TREE_ONLINE = [row(0, "tank"), row(1, "mirror-0"), row(2, "sda"), row(2, "sdb")]
TREE_RESILVER = [row(0, "tank", "DEGRADED"), row(1, "raidz2-0", "DEGRADED"), row(2, "sda"),
                 row(2, "replacing-1", "DEGRADED"), row(3, "sdb", "UNAVAIL", "cannot open"),
                 row(3, "sdg", note="(resilvering)")]

TREE_MISSING = [row(0, "tank", "DEGRADED"), row(1, "raidz2-0", "DEGRADED"), row(2, "sda"),
                row(2, "sdb", "UNAVAIL", "cannot open"), row(2, "sdc")]

# ----------------------------------------------------------------------------- helpers


def test_ctime_and_dhms():
    assert ctime_utc(E) == "Sat Oct 14 00:00:01 2023\n"
    assert ctime_utc(1610190133) == "Sat Jan  9 11:02:13 2021\n"  # %e: space-padded day
    assert secs_to_dhms(0) == "00:00:00"
    assert secs_to_dhms(86399) == "23:59:59"
    assert secs_to_dhms(86400 + 2 * 3600 + 3 * 60 + 4) == "1 days 02:03:04"


def test_era_map():
    assert [scan_era(r) for r in ("solaris-2009", *LEGACY, "zfs-0.7", "zfs-0.8", "zfs-2.0",
                                  "zfs-2.1", "zfs-2.2", "zfs-2.3")] == [
        "2009", "legacy", "legacy", "legacy", "legacy", "0.7", "0.8", "2.0", "2.0", "2.2",
        "2.2"]
    with pytest.raises(ValueError, match="unknown release"):
        scan_era("zfs-9.9")


# ----------------------------------------------------------------------------- ETA arithmetic


def test_eta_legacy_spec_example_b():
    # §8.1 (b): "1.21T scanned out of 3.56T at 85.3M/s, 8h1m to go", "33.99% done".
    # rate = pass_exam / elapsed = 89443532 (85.3M); (3.56T - 1.21T) / rate = 28917 s -> 8h1m
    ps = scan("resilver", examined=89443532 * 14874, pass_exam=89443532 * 14874,
              to_examine=int(3.56 * TiB), processed=301 * GiB)
    p = scan_progress(ps, "zfs-0.6.5", E + 14874)
    assert (p.scan_rate, p.eta) == (89443532, "8h1m")
    assert lines(ps, "zfs-0.6.5", 14874) == (
        "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        "    1.21T scanned out of 3.56T at 85.3M/s, 8h1m to go\n"
        "    301G resilvered, 33.99% done\n")


def test_eta_07_spec_example_c():
    # §8.1 (c): 2.18T of 10.4T in 5548 s -> 412M/s, (10.4T - 2.18T) / rate -> 5h48m, 20.96%
    x = int(2.18 * TiB)
    ps = scan(examined=x, pass_exam=x, to_examine=int(10.4 * TiB))
    assert lines(ps, "zfs-0.7", 5548) == (
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        "\t2.18T scanned out of 10.4T at 412M/s, 5h48m to go\n"
        "\t0B repaired, 20.96% done\n")


def test_eta_08_spec_example_d():
    # §8.1 (d): issue rate 381M/s over 5146 s; (total - issued) / rate = 23475 s = 06:31:15
    r = 381 * MiB
    ps = scan(examined=int(5.12 * TiB), pass_exam=int(5.12 * TiB), issued=r * 5146,
              pass_issued=r * 5146, to_examine=r * (5146 + 23475))
    p = scan_progress(ps, "zfs-0.8", E + 5146)
    assert (p.issue_rate, p.secs_left) == (r, 23475)
    body = ("  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
            "\t5.12T scanned at 1.02G/s, 1.87T issued at 381M/s, 10.4T total\n")
    assert lines(ps, "zfs-0.8", 5146) == body + "\t0B repaired, 17.98% done, 0 days 06:31:15 to go\n"
    assert lines(ps, "zfs-2.1", 5146) == body + "\t0B repaired, 17.98% done, 06:31:15 to go\n"


def test_eta_22_spec_example_e():
    # §8.1 (e): "6.02T / 10.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s",
    # "20.29% done, 05:36:08 to go": (T - ISS) / 431M = 25303 - 5135 = 20168 s = 05:36:08
    p = scan_progress(scan(), "zfs-2.2", E + NOW_T)
    assert (p.scan_rate, p.issue_rate, p.secs_left, p.eta) == (1289014330, R431, 20168,
                                                               "05:36:08")
    assert f"{100 * p.fraction_done:.2f}" == "20.29"


def test_eta_paused_time_is_subtracted_from_07():
    # 1000 s spent paused: elapsed 5135 -> 4135 s, so the 0.7+ rate rises; legacy ignores it.
    ps = scan(pass_scrub_spent_paused_s=1000)
    assert scan_progress(ps, "zfs-0.7", E + NOW_T).scan_rate == X // 4135
    assert scan_progress(ps, "zfs-2.2", E + NOW_T).issue_rate == ISS // 4135
    assert scan_progress(ps, "zfs-0.6.5", E + NOW_T).scan_rate == X // 5135


def test_eta_2009():
    # minutes_left = elapsed * (1 - f) / f / 60 with f = 6.02T / 10.4T = 0.5788
    p = scan_progress(scan(), "solaris-2009", E + NOW_T)
    assert p.eta == "1h2m"


def test_2009_divides_by_the_pools_allocation_when_it_prints():
    """print_scrub_status (2009): total = the root's vs_alloc at that moment, raised to
    what was examined; not the bytes to examine fixed at the scan's start."""
    p = scan_progress(scan(pool_alloc=2 * X), "solaris-2009", E + NOW_T)
    assert (p.total_s, p.fraction_done) == (2 * X, 0.5)
    assert p.eta == f"{NOW_T // 3600}h{NOW_T % 3600 // 60}m"  # as long again as it ran
    p = scan_progress(scan(pool_alloc=X // 2), "solaris-2009", E + NOW_T)
    assert (p.total_s, p.fraction_done, p.eta) == (X, 1.0, "0h0m")


# ----------------------------------------------------------------------------- per era


def test_2009_all_states():
    assert lines(scan("none", "none"), "solaris-2009") == " scrub: none requested\n"
    assert lines(scan(), "solaris-2009") == (
        " scrub: scrub in progress for 1h25m, 57.88% done, 1h2m to go\n")
    assert lines(scan("resilver"), "solaris-2009") == (
        " scrub: resilver in progress for 1h25m, 57.88% done, 1h2m to go\n")
    assert lines(scan(state="finished", end_s=E + 25964), "solaris-2009") == (
        " scrub: scrub completed after 7h12m with 0 errors on Sat Oct 14 07:12:45 2023\n")
    assert lines(scan("resilver", "finished", end_s=E + 93784, errors=2), "solaris-2009") == (
        " scrub: resilver completed after 26h3m with 2 errors on Sun Oct 15 02:03:05 2023\n")
    assert lines(scan(state="canceled", end_s=E + 9 * 3600), "solaris-2009") == (
        " scrub: scrub stopped after 9h0m with 0 errors on Sat Oct 14 09:00:01 2023\n")


@pytest.mark.parametrize("release", LEGACY)
def test_legacy_all_states(release):
    ind = " " * 8 if release == "freebsd-9" else " " * 4
    assert lines(scan("none", "none"), release) == "  scan: none requested\n"
    # 57.88% = X / T; (T - X) / 1289014330 B/s = 3734 s -> 62 min -> 1h2m
    assert lines(scan(), release) == (
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        f"{ind}6.02T scanned out of 10.4T at 1.20G/s, 1h2m to go\n"
        f"{ind}0 repaired, 57.88% done\n")
    assert lines(scan("resilver", processed=300 * GiB), release) == (
        "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        f"{ind}6.02T scanned out of 10.4T at 1.20G/s, 1h2m to go\n"
        f"{ind}300G resilvered, 57.88% done\n")
    # 1000 B/s: (T - X) / 1000 / 3600 >> 720 h
    slow = scan(pass_exam=1000 * NOW_T)
    assert lines(slow, release) == (
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        f"{ind}6.02T scanned out of 10.4T at 1000/s, (scan is slow, no estimated time)\n"
        f"{ind}0 repaired, 57.88% done\n")
    assert lines(scan(state="finished", end_s=E + 25964), release) == (
        "  scan: scrub repaired 0 in 7h12m with 0 errors on Sat Oct 14 07:12:45 2023\n")
    done = scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB))
    assert lines(done, release) == (
        "  scan: resilvered 2.91T in 26h3m with 0 errors on Sun Oct 15 02:03:05 2023\n")
    assert lines(scan(state="canceled", end_s=E + 9 * 3600), release) == (
        "  scan: scrub canceled on Sat Oct 14 09:00:01 2023\n")
    assert lines(scan("resilver", "canceled", end_s=E + 9 * 3600), release) == (
        "  scan: resilver canceled on Sat Oct 14 09:00:01 2023\n")


def test_07_all_states():
    r = "zfs-0.7"
    assert lines(scan(), r) == (
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T scanned out of 10.4T at 1.20G/s, 1h2m to go\n"
        "\t0B repaired, 57.88% done\n")
    assert lines(scan("resilver", processed=300 * GiB), r) == (
        "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T scanned out of 10.4T at 1.20G/s, 1h2m to go\n"
        "\t300G resilvered, 57.88% done\n")
    assert lines(scan(pass_exam=1000 * NOW_T), r) == (
        "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T scanned out of 10.4T at 1000B/s, (scan is slow, no estimated time)\n"
        "\t0B repaired, 57.88% done\n")
    assert lines(scan(pass_scrub_pause_s=E + 3000), r) == (
        "  scan: scrub paused since Sat Oct 14 00:50:01 2023\n"
        "\tscrub started on   Sat Oct 14 00:00:01 2023\n"
        "\t6.02T scanned out of 10.4T\n"
        "\t0B repaired, 57.88% done\n")
    assert lines(scan(state="finished", end_s=E + 25964), r) == (
        "  scan: scrub repaired 0B in 7h12m with 0 errors on Sat Oct 14 07:12:45 2023\n")
    done = scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB))
    assert lines(done, r) == (
        "  scan: resilvered 2.91T in 26h3m with 0 errors on Sun Oct 15 02:03:05 2023\n")
    assert lines(scan(state="canceled", end_s=E + 9 * 3600), r) == (
        "  scan: scrub canceled on Sat Oct 14 09:00:01 2023\n")


@pytest.mark.parametrize("release", ["zfs-0.8", "zfs-2.0", "zfs-2.1"])
def test_08_to_21_all_states(release):
    eta = "0 days 05:36:08" if release == "zfs-0.8" else "05:36:08"
    head = "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
    mid = "\t6.02T scanned at 1.20G/s, 2.11T issued at 431M/s, 10.4T total\n"
    assert lines(scan(), release) == head + mid + f"\t0B repaired, 20.29% done, {eta} to go\n"
    assert lines(scan("resilver", processed=300 * GiB), release) == (
        "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n" + mid
        + f"\t300G resilvered, 20.29% done, {eta} to go\n")
    # 5M/s issue rate: below the 10 MiB/s threshold
    slow = scan(issued=5 * MiB * NOW_T, pass_issued=5 * MiB * NOW_T)
    assert lines(slow, release) == head + (
        "\t6.02T scanned at 1.20G/s, 25.1G issued at 5M/s, 10.4T total\n"
        "\t0B repaired, 0.24% done, no estimated completion time\n")
    assert lines(scan(pass_scrub_pause_s=E + 3000), release) == (
        "  scan: scrub paused since Sat Oct 14 00:50:01 2023\n"
        "\tscrub started on Sat Oct 14 00:00:01 2023\n"
        "\t6.02T scanned, 2.11T issued, 10.4T total\n"
        "\t0B repaired, 20.29% done\n")
    took = "0 days 07:12:44" if release == "zfs-0.8" else "07:12:44"
    assert lines(scan(state="finished", end_s=E + 25964), release) == (
        f"  scan: scrub repaired 0B in {took} with 0 errors on Sat Oct 14 07:12:45 2023\n")
    done = scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB))
    assert lines(done, release) == (
        "  scan: resilvered 2.91T in 1 days 02:03:04 with 0 errors on Sun Oct 15 02:03:05 2023\n")
    assert lines(scan(state="canceled", end_s=E + 9 * 3600), release) == (
        "  scan: scrub canceled on Sat Oct 14 09:00:01 2023\n")


def test_08_none_requested_and_20_prints_nothing():
    assert lines(scan("none", "none"), "zfs-0.8") == "  scan: none requested\n"
    assert lines(scan("none", "none"), "zfs-2.0") == ""
    assert lines(scan("none", "none"), "zfs-2.2") == ""


@pytest.mark.parametrize("release", ["zfs-2.2", "zfs-2.3"])
def test_22_all_states(release):
    head = "  scan: scrub in progress since Sat Oct 14 00:00:01 2023\n"
    mid = "\t6.02T / 10.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s\n"
    assert lines(scan(), release) == head + mid + "\t0B repaired, 20.29% done, 05:36:08 to go\n"
    # skipped bytes leave the issue total: 12.4T to scan, 10.4T to issue
    rs = scan("resilver", processed=300 * GiB, to_examine=T + 2 * TiB, skipped=2 * TiB)
    assert lines(rs, release) == (
        "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T / 12.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s\n"
        "\t300G resilvered, 20.29% done, 05:36:08 to go\n")
    # a resilver that has repaired nothing yet gets no estimate, whatever the rate
    assert lines(scan("resilver"), release).endswith(
        "\t0B resilvered, 20.29% done, no estimated completion time\n")
    # metadata phase: nothing issued, the issue rate is omitted
    meta = scan(issued=0, pass_issued=0)
    assert lines(meta, release) == head + (
        "\t6.02T / 10.4T scanned at 1.20G/s, 0B / 10.4T issued\n"
        "\t0B repaired, 0.00% done, no estimated completion time\n")
    slow = scan(issued=5 * MiB * NOW_T, pass_issued=5 * MiB * NOW_T)
    assert lines(slow, release) == head + (
        "\t6.02T / 10.4T scanned at 1.20G/s, 25.1G / 10.4T issued at 5M/s\n"
        "\t0B repaired, 0.24% done, no estimated completion time\n")
    assert lines(scan(pass_scrub_pause_s=E + 3000), release) == (
        "  scan: scrub paused since Sat Oct 14 00:50:01 2023\n"
        "\tscrub started on Sat Oct 14 00:00:01 2023\n"
        "\t6.02T / 10.4T scanned, 2.11T / 10.4T issued\n"
        "\t0B repaired, 20.29% done\n")
    assert lines(scan(state="finished", end_s=E + 25964), release) == (
        "  scan: scrub repaired 0B in 07:12:44 with 0 errors on Sat Oct 14 07:12:45 2023\n")
    done = scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB))
    assert lines(done, release) == (
        "  scan: resilvered 2.91T in 1 days 02:03:04 with 0 errors on Sun Oct 15 02:03:05 2023\n")
    assert lines(scan(state="canceled", end_s=E + 9 * 3600), release) == (
        "  scan: scrub canceled on Sat Oct 14 09:00:01 2023\n")


# ----------------------------------------------------------------------------- rebuild


def rebuild(state="active", **kw) -> dict:
    # 412G scanned in 373 s: (412G // 373001 ms) * 1000 = 1186006000 B/s -> "1.10G";
    # 398G issued -> 1145705000 B/s -> "1.07G"; 3.51T estimate; 412G*100/(est+1) = 11.46 %;
    # (est - scanned) // 1186006000 = 2881 s = 00:48:01
    vrs = {"vdev": "mirror-0", "state": state, "start_s": E, "end_s": 0,
           "scanned": 412 * GiB, "issued": 398 * GiB, "rebuilt": 398 * GiB,
           "estimate": int(3.51 * TiB), "pass_start_s": E, "pass_scanned": 412 * GiB,
           "pass_issued": 398 * GiB, "pass_time_ms": 373000, "errors": 0}
    vrs.update(kw)
    return vrs


def test_rebuild_20_21():
    for release in ("zfs-2.0", "zfs-2.1"):
        assert lines(None, release, 373, [rebuild()]) == (
            "  scan: resilver (mirror-0) in progress since Sat Oct 14 00:00:01 2023\n"
            "\t412G scanned at 1.10G/s, 398G issued 1.07G/s, 3.51T total\n"
            "\t398G resilvered, 11.46% done, 00:48:01 to go\n")
        slow = rebuild(pass_scanned=1 * GiB, pass_issued=1 * GiB)  # 2.87M/s
        assert lines(None, release, 373, [slow]).endswith(
            "\t398G resilvered, 11.46% done, no estimated completion time\n")


def test_rebuild_22():
    assert lines(None, "zfs-2.2", 373, [rebuild()]) == (
        "  scan: resilver (mirror-0) in progress since Sat Oct 14 00:00:01 2023\n"
        "\t412G / 3.51T scanned at 1.10G/s, 398G / 3.51T issued at 1.07G/s\n"
        "\t398G resilvered, 11.46% done, 00:48:01 to go\n")
    idle = rebuild(pass_scanned=0, pass_issued=0)
    assert lines(None, "zfs-2.2", 373, [idle]) == (
        "  scan: resilver (mirror-0) in progress since Sat Oct 14 00:00:01 2023\n"
        "\t412G / 3.51T scanned, 398G / 3.51T issued\n"
        "\t398G resilvered, 11.46% done, no estimated completion time\n")


@pytest.mark.parametrize("release", ["zfs-2.0", "zfs-2.2"])
def test_rebuild_finished_and_canceled(release):
    done = rebuild("complete", end_s=E + 3310, rebuilt=int(3.51 * TiB), scan_time_ms=3310000)
    assert lines(None, release, 4000, [done]) == (
        "  scan: resilvered (mirror-0) 3.51T in 00:55:10 with 0 errors on "
        "Sat Oct 14 00:55:11 2023\n")
    gone = rebuild("canceled", end_s=E + 3310)
    assert lines(None, release, 4000, [gone]) == (
        "  scan: resilver (mirror-0) canceled on Sat Oct 14 00:55:11 2023\n")


def test_scrub_after_rebuild_prints_both():
    # print_scan_status 2.0+: the scrub line, then the last rebuild (no resilver since).
    done = rebuild("complete", end_s=E + 3310, rebuilt=int(3.51 * TiB), scan_time_ms=3310000)
    ps = scan(start_s=E + 3400, pass_start_s=E + 3400, issued=0, pass_issued=0)
    assert lines(ps, "zfs-2.2", 3400 + NOW_T, [done]) == (
        "  scan: scrub in progress since Sat Oct 14 00:56:41 2023\n"
        "\t6.02T / 10.4T scanned at 1.20G/s, 0B / 10.4T issued\n"
        "\t0B repaired, 0.00% done, no estimated completion time\n"
        "  scan: resilvered (mirror-0) 3.51T in 00:55:10 with 0 errors on "
        "Sat Oct 14 00:55:11 2023\n")


# ----------------------------------------------------------------------------- whole text

CONFIG_RESILVER = (
    "config:\n"
    "\n"
    "\tNAME             STATE     READ WRITE CKSUM\n"
    "\ttank             DEGRADED     0     0     0\n"
    "\t  raidz2-0       DEGRADED     0     0     0\n"
    "\t    sda          ONLINE       0     0     0\n"
    "\t    replacing-1  DEGRADED     0     0     0\n"
    "\t      sdb        UNAVAIL      0     0     0  cannot open\n"
    "\t      sdg        ONLINE       0     0     0  (resilvering)\n"
    "\n"
    "errors: No known data errors\n")
RESILVERING = (
    "status: One or more devices is currently being resilvered.  The pool will\n"
    "\tcontinue to function, possibly in a degraded state.\n"
    "action: Wait for the resilver to complete.\n")


def resilver_snapshot():
    return snap(scan("resilver", processed=300 * GiB), state="DEGRADED", tree=TREE_RESILVER)


def test_full_resilver_22():
    assert zpool_status(resilver_snapshot(), "zfs-2.2", "tank", E) == (
        "  pool: tank\n"
        " state: DEGRADED\n" + RESILVERING
        + "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        "\t6.02T / 10.4T scanned at 1.20G/s, 2.11T / 10.4T issued at 431M/s\n"
        "\t300G resilvered, 20.29% done, 05:36:08 to go\n" + CONFIG_RESILVER)


def test_full_resilver_065():
    assert zpool_status(resilver_snapshot(), "zfs-0.6.5", "tank", E) == (
        "  pool: tank\n"
        " state: DEGRADED\n" + RESILVERING
        + "  scan: resilver in progress since Sat Oct 14 00:00:01 2023\n"
        "    6.02T scanned out of 10.4T at 1.20G/s, 1h2m to go\n"
        "    300G resilvered, 57.88% done\n" + CONFIG_RESILVER)


def resilver_snapshot_2009(ps):
    """The core gives a 2009 leaf no "(resilvering)" note, only its repair bytes."""
    tree = [dict(r) for r in TREE_RESILVER]
    tree[-1].update(note="", scan_processed=300 * GiB)
    return snap(ps, state="DEGRADED", tree=tree)


def test_full_resilver_2009():
    # The unavailable disk sits inside "replacing", which find_vdev_problem skips, so the
    # reason is "resilvering"; top-level names carry no "-N" id in that release. The new
    # disk shows its vs_scrub_repaired, "300G resilvered", not "(resilvering)" (audit 4 F1:
    # print_status_config at il:379c004d1f; the "(%s)" form came with il:3f9d6ad73e, 2010).
    assert zpool_status(resilver_snapshot_2009(scan("resilver", processed=300 * GiB)), "solaris-2009", "tank",
                        E) == (
        "  pool: tank\n"
        " state: DEGRADED\n" + RESILVERING
        + " scrub: resilver in progress for 1h25m, 57.88% done, 1h2m to go\n"
        "config:\n"
        "\n"
        "\tNAME           STATE     READ WRITE CKSUM\n"
        "\ttank           DEGRADED     0     0     0\n"
        "\t  raidz2       DEGRADED     0     0     0\n"
        "\t    sda        ONLINE       0     0     0\n"
        "\t    replacing  DEGRADED     0     0     0\n"
        "\t      sdb      UNAVAIL      0     0     0  cannot open\n"
        "\t      sdg      ONLINE       0     0     0  300G resilvered\n"
        "\n"
        "errors: No known data errors\n")


def test_2009_leaf_keeps_its_repair_bytes_after_the_scan_and_a_stop_still_resilvers():
    """Audit 4 F1/F2: vdev_scrub_stat_update(POOL_SCRUB_NONE) at the end or stop of a scan
    leaves vs_scrub_repaired and vs_scrub_type alone, so the leaf keeps "300G resilvered";
    a stopped resilver (vs_scrub_complete = 0, type RESILVER) is still "currently being
    resilvered" in check_status (il:379c004d1f)."""
    done = scan("resilver", "finished", end_s=E + 3600, processed=300 * GiB)
    text = zpool_status(resilver_snapshot_2009(done), "solaris-2009", "tank", E)
    assert "\t      sdg      ONLINE       0     0     0  300G resilvered\n" in text
    assert "status:" not in text
    stopped = scan("resilver", "canceled", end_s=E + 3600, processed=300 * GiB)
    text = zpool_status(resilver_snapshot_2009(stopped), "solaris-2009", "tank", E)
    assert RESILVERING in text and " scrub: resilver stopped after 1h0m" in text
    # A scrub's repairs are "repaired"; the unavailable disk keeps its aux note alone.
    scrub = resilver_snapshot_2009(scan("scrub", "finished", end_s=E + 60))
    scrub["tree"][-2]["scan_processed"] = 4096
    text = zpool_status(scrub, "solaris-2009", "tank", E)
    assert "  300G repaired\n" in text and "  cannot open\n" in text and "4K" not in text
    # Later releases stop resilvering at a cancel.
    assert RESILVERING not in zpool_status(snap(stopped, state="DEGRADED", tree=TREE_RESILVER), "illumos-2012",
                                           "tank", E)


@pytest.mark.parametrize(("release", "url"), [
    ("illumos-2014", "http://illumos.org/msg/"),
    ("zfs-0.7", "http://zfsonlinux.org/msg/"),
    ("zfs-2.1", "https://openzfs.github.io/openzfs-docs/msg/"),
])
def test_missing_device_has_see_line(release, url):
    done = scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB))
    text = zpool_status(snap(done, state="DEGRADED", tree=TREE_MISSING), release, "tank", E)
    assert text.splitlines()[2:6] == [
        "status: One or more devices could not be opened.  Sufficient replicas exist for",
        "\tthe pool to continue functioning in a degraded state.",
        "action: Attach the missing device and online it using 'zpool online'.",
        f"   see: {url}ZFS-8000-2Q"]


TREE_DEAD = [row(0, "tank", "UNAVAIL", "insufficient replicas"),
             row(1, "mirror-0", "UNAVAIL", "insufficient replicas"),
             row(2, "sda", "UNAVAIL", "cannot open"), row(2, "sdb", "UNAVAIL", "cannot open")]


@pytest.mark.parametrize(("release", "url"), [
    ("solaris-2009", "http://www.sun.com/msg/"),
    ("zfs-0.7", "http://zfsonlinux.org/msg/"),
    ("zfs-2.2", "https://openzfs.github.io/openzfs-docs/msg/"),
])
def test_dead_vdev_has_no_replicas_reason_and_counts_data_errors(release, url):
    s = snap(state="UNAVAIL", tree=TREE_DEAD)
    s["errors"] = 412
    text = zpool_status(s, release, "tank", E).splitlines()
    assert text[1] == " state: UNAVAIL"
    assert text[2:6] == [
        "status: One or more devices could not be opened.  There are insufficient",
        "\treplicas for the pool to continue functioning.",
        "action: Attach the missing device and online it using 'zpool online'.",
        f"   see: {url}ZFS-8000-3C"]
    assert "\ttank        UNAVAIL      0     0     0  insufficient replicas" in text
    assert text[-1] == "errors: 412 data errors, use '-v' for a list"
    s["errors"] = 0
    assert zpool_status(s, release, "tank", E).splitlines()[-1] == "errors: No known data errors"


def test_2009_checks_missing_devices_before_resilvering():
    # il:0a586cea3c check_status: MISSING_DEV_R comes before RESILVERING; later releases
    # test the resilver first.
    s = snap(scan("resilver", processed=300 * GiB), state="DEGRADED", tree=TREE_MISSING)
    assert zpool_status(s, "solaris-2009", "tank", E).splitlines()[2:7] == [
        "status: One or more devices could not be opened.  Sufficient replicas exist for",
        "\tthe pool to continue functioning in a degraded state.",
        "action: Attach the missing device and online it using 'zpool online'.",
        "   see: http://www.sun.com/msg/ZFS-8000-2Q",
        " scrub: resilver in progress for 1h25m, 57.88% done, 1h2m to go"]
    assert zpool_status(s, "illumos-2012", "tank", E).splitlines()[2] == (
        "status: One or more devices is currently being resilvered.  The pool will")


def test_full_rebuild_done_recommends_scrub():
    done = rebuild("complete", end_s=E + 3310, rebuilt=int(3.51 * TiB), scan_time_ms=3310000)
    assert zpool_status(snap(None, [done], 4000), "zfs-2.2", "tank", E) == (
        "  pool: tank\n"
        " state: ONLINE\n"
        "status: One or more devices have been sequentially resilvered, scrubbing\n"
        "\tthe pool is recommended.\n"
        "action: Use 'zpool scrub' to verify all data checksums.\n"
        "  scan: resilvered (mirror-0) 3.51T in 00:55:10 with 0 errors on "
        "Sat Oct 14 00:55:11 2023\n"
        "config:\n"
        "\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        ONLINE       0     0     0\n"
        "\t  mirror-0  ONLINE       0     0     0\n"
        "\t    sda     ONLINE       0     0     0\n"
        "\t    sdb     ONLINE       0     0     0\n"
        "\n"
        "errors: No known data errors\n")


def test_full_rebuild_active_says_resilvering():
    text = zpool_status(snap(None, [rebuild()], 373, state="DEGRADED"), "zfs-2.0", "tank", E)
    assert text.startswith("  pool: tank\n state: DEGRADED\n" + RESILVERING
                           + "  scan: resilver (mirror-0) in progress since ")


# ----------------------------------------------------------------------------- render_text


def test_render_text_prints_one_status_per_snapshot():
    import json
    from pathlib import Path

    fixtures = Path(__file__).resolve().parent / "fixtures"
    results = json.loads((fixtures / "results_raidz2.json").read_text())
    meta = json.loads((fixtures / "meta_raidz2.json").read_text())
    r = copy.deepcopy(results)
    first = snap(scan("resilver", processed=300 * GiB), state="DEGRADED", tree=TREE_RESILVER)
    last = snap(scan("resilver", "finished", end_s=E + 93784, processed=int(2.91 * TiB)),
                t_s=93790)
    r["status"] = {"epoch_s": E, "snapshots": [first, last]}
    text = render_text(r, dict(meta, release="zfs-2.2"), views=("status",))
    sections = text.split("\n$ zpool status tank\n")
    assert len(sections) == 3
    assert sections[1] == zpool_status(first, "zfs-2.2", "tank", E, r)
    # the snapshot's tree holds the data vdevs; the L2ARC device is appended, ONLINE
    assert sections[1].splitlines()[-4:-2] == ["\tcache", "\t  nvd0           ONLINE       0     0     0"]
    assert sections[2].splitlines()[2] == (
        "  scan: resilvered 2.91T in 1 days 02:03:04 with 0 errors on Sun Oct 15 02:03:05 2023")
    # without scan results the status view is the configuration block, as before
    assert "\n$ zpool status tank\n  pool: tank\n state: ONLINE\nconfig:" in render_text(
        results, meta, views=("status",))


# ----------------------------------------------------------------------------- offline, deferral


TREE_OFFLINE = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"), row(2, "sda"),
                row(2, "sdb", "OFFLINE")]


@pytest.mark.parametrize("release", ["zfs-0.6.5", "zfs-0.8", "zfs-2.2", "zfs-2.3"])
def test_offline_device_has_the_offline_reason(release):
    text = zpool_status(snap(None, state="DEGRADED", tree=TREE_OFFLINE), release, "tank", E)
    assert text.splitlines()[2:7] == [
        "status: One or more devices has been taken offline by the administrator.",
        "\tSufficient replicas exist for the pool to continue functioning in a",
        "\tdegraded state.",
        "action: Online the device using 'zpool online' or replace the device with",
        "\t'zpool replace'."]
    assert "\t    sdb     OFFLINE      0     0     0\n" in text


def test_resilvering_outranks_offline_and_deferred_disk_is_noted():
    tree = [row(0, "tank", "DEGRADED"), row(1, "mirror-0", "DEGRADED"), row(2, "sda"),
            row(2, "sdb", "OFFLINE"), row(2, "sdc", note="(resilvering)"),
            row(2, "sdd", note="(awaiting resilver)")]
    text = zpool_status(snap(scan("resilver", processed=GiB), state="DEGRADED", tree=tree),
                        "zfs-2.2", "tank", E)
    assert text.splitlines()[2] == (
        "status: One or more devices is currently being resilvered.  The pool will")
    assert text.splitlines()[-3:-2] == ["\t    sdd     ONLINE       0     0     0  (awaiting resilver)"]


def test_refused_commands_print_before_the_status():
    import json
    from pathlib import Path

    fixtures = Path(__file__).resolve().parent / "fixtures"
    r = json.loads((fixtures / "results_raidz2.json").read_text())
    meta = json.loads((fixtures / "meta_raidz2.json").read_text())
    r["status"] = {"epoch_s": E, "snapshots": [snap(None, tree=TREE_ONLINE)]}
    r["actions"] = [{"at_ns": 0, "command": "zpool detach tank sda", "error": None, "warning": None},
                    {"at_ns": 1, "command": "zpool detach tank sdb",
                     "error": "cannot detach sdb: no valid replicas", "warning": None}]
    text = render_text(r, dict(meta, release="zfs-2.2"), views=("status",))
    assert "\n$ zpool detach tank sdb\ncannot detach sdb: no valid replicas\n\n$ zpool status tank\n" in text
    assert "zpool detach tank sda" not in text


# ----------------------------------------------------------------------------- logs and cache
# The pool of TREE_ONLINE with a log mirror (sdd sde), a lone log disk (sdf) and an L2ARC
# device (nvd0), as the results list them (docs/internals.md "Results": pool.log, pool.cache;
# log vdevs are numbered after the data vdevs, a lone log disk goes by its name).

LAYOUT = {
    "pool": {"name": "tank", "alloc_bytes": 0, "size_bytes": 0,
             "vdevs": [{"name": "mirror-0", "type": "mirror", "leaves": [0, 1]}],
             "cache": [2],
             "log": [{"name": "mirror-1", "type": "mirror", "leaves": [3, 4]},
                     {"name": "sdf", "type": "disk", "leaves": [5]}]},
    "leaves": [{"name": n, "size_bytes": 1 << 40} for n in ("sda", "sdb", "nvd0", "sdd", "sde", "sdf")],
}


def _classes_block(release: str, logs_line: str) -> str:
    mirror = "mirror" if release == "solaris-2009" else "mirror-1"
    return (f"{logs_line}\n"
            f"\t  {mirror:<8}  ONLINE       0     0     0\n"
            "\t    sdd     ONLINE       0     0     0\n"
            "\t    sde     ONLINE       0     0     0\n"
            "\t  sdf       ONLINE       0     0     0\n"
            "\tcache\n"
            "\t  nvd0      ONLINE       0     0     0\n")


# print_status_config(zhp, "logs", nvroot, …) in OpenSolaris 2009.06 (il:379c004d1f): the
# root's row again; print_logs "\tlogs\n" (il:aa8cf21aa2 … ZM@zfs-0.7.13); print_class_vdevs
# "\t%s\t\n" (ZM@zfs-0.8.0 … @zfs-2.3.4). print_l2cache "\tcache\n" in every era.
LOGS_LINE = {"solaris-2009": "\tlogs        ONLINE       0     0     0", "freebsd-9": "\tlogs",
             "illumos-2012": "\tlogs", "illumos-2014": "\tlogs", "zfs-0.6.5": "\tlogs", "zfs-0.7": "\tlogs",
             "zfs-0.8": "\tlogs\t", "zfs-2.0": "\tlogs\t", "zfs-2.1": "\tlogs\t", "zfs-2.2": "\tlogs\t",
             "zfs-2.3": "\tlogs\t"}


@pytest.mark.parametrize("release", sorted(LOGS_LINE))
def test_logs_and_cache_without_scan(release):
    from ziosim.report.status import zpool_status_config

    top = "mirror  " if release == "solaris-2009" else "mirror-0"
    assert zpool_status_config(LAYOUT, release) == (
        "  pool: tank\n"
        " state: ONLINE\n"
        "config:\n"
        "\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        ONLINE       0     0     0\n"
        f"\t  {top}  ONLINE       0     0     0\n"
        "\t    sda     ONLINE       0     0     0\n"
        "\t    sdb     ONLINE       0     0     0\n"
        + _classes_block(release, LOGS_LINE[release]) +
        "\n"
        "errors: No known data errors\n")


@pytest.mark.parametrize("release", sorted(LOGS_LINE))
def test_logs_and_cache_follow_the_snapshot_tree(release):
    """A run with actions prints the snapshot's tree, then the classes, ONLINE; the
    2009 logs row repeats the root's state (here DEGRADED) and counters."""
    text = zpool_status(snap(state="DEGRADED", tree=TREE_MISSING), release, "tank", E, LAYOUT)
    logs_line = LOGS_LINE[release].replace("ONLINE  ", "DEGRADED")
    config = text[text.index("\tNAME"):]
    raidz = "raidz2  " if release == "solaris-2009" else "raidz2-0"
    assert config == (
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\ttank        DEGRADED     0     0     0\n"
        f"\t  {raidz}  DEGRADED     0     0     0\n"
        "\t    sda     ONLINE       0     0     0\n"
        "\t    sdb     UNAVAIL      0     0     0  cannot open\n"
        "\t    sdc     ONLINE       0     0     0\n"
        + _classes_block(release, logs_line) +
        "\n"
        "errors: No known data errors\n")
    # without the layout, the snapshot's tree alone (as before the results had pool.log)
    assert "logs" not in zpool_status(snap(tree=TREE_MISSING), release, "tank", E)


def test_a_long_log_disk_name_widens_the_name_column():
    """max_width() walks the log vdevs and the L2ARC devices too (every era)."""
    from ziosim.report.status import zpool_status_config

    layout = copy.deepcopy(LAYOUT)
    layout["leaves"][5]["name"] = "nvme-INTEL_SSDPE21D280GA_PHM2"
    text = zpool_status_config(layout, "zfs-2.2").splitlines()
    assert text[4] == "\tNAME                             STATE     READ WRITE CKSUM"
    assert text[13] == "\t  nvme-INTEL_SSDPE21D280GA_PHM2  ONLINE       0     0     0"

"""The ``zpool iostat -v`` name column as each release's ``get_namewidth`` and
``max_width`` size it (QA pass 8, findings 3-5)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from ziosim.report.iostat import zpool_iostat, zpool_iostat_w

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def results():
    return json.loads((FIXTURES / "results_raidz2.json").read_text())


def _width(text: str) -> int:
    """The name column's width: the dashes before the first stat column."""
    dashes = next(ln for ln in text.splitlines() if ln.startswith("---"))
    return len(dashes.split("  ")[0])


@pytest.mark.parametrize("release", ["solaris-2009", "illumos-2014", "zfs-0.6.5", "zfs-2.1", "zfs-2.3"])
def test_hot_spares_size_the_column_though_not_printed(results, release):
    # max_width walks ZPOOL_CONFIG_SPARES before the children, at depth 2, in every release
    # (il:379c004d1f, ZM@zfs-0.6.5, ZM@zfs-2.2.0); -v prints no spare row.
    r = copy.deepcopy(results)
    r["pool"]["spares"] = ["hotspare-disk0"]
    text = zpool_iostat(r, release, samples=[0])
    assert _width(text) == len("hotspare-disk0") + 2
    assert "hotspare-disk0" not in text
    assert _width(zpool_iostat(results, release, samples=[0])) == 10


@pytest.mark.parametrize(("release", "width"), [
    ("solaris-2009", 38), ("freebsd-9", 38), ("illumos-2012", 38), ("illumos-2014", 38),
    ("zfs-0.6.5", 43), ("zfs-2.2", 43)])
def test_illumos_and_opensolaris_cap_the_column_at_38(results, release, width):
    # get_namewidth clamps to [10, 38] on OpenSolaris and illumos; ZoL to columns - 42,
    # no limit when stdout is not a terminal. A longer name prints unpadded.
    r = copy.deepcopy(results)
    long = "c0t5000CCA25DE1A2B3C4D5E6F7A8B9C0D1E2d0"
    r["leaves"][0]["name"] = long
    lines = zpool_iostat(r, release, samples=[0]).splitlines()
    assert _width("\n".join(lines)) == width
    row = next(ln for ln in lines if long in ln)
    assert row.startswith("    " + long + "      -      -")


def test_a_long_pool_name_counts_from_0_7_only(results):
    # From ZM@zfs-0.7.0 get_namewidth takes MAX(poolname_len, max_width(...)); before, -v
    # measures the vdev tree from the root vdev ("root-0"), not the pool's name.
    r = copy.deepcopy(results)
    r["pool"]["name"] = "a-pool-with-a-long-name"
    assert _width(zpool_iostat(r, "zfs-0.7", samples=[0])) == len(r["pool"]["name"])
    assert _width(zpool_iostat(r, "zfs-0.6.5", samples=[0])) == 10
    assert _width(zpool_iostat_w(r, "zfs-0.7", verbose=True)) == len(r["pool"]["name"])


@pytest.mark.needs_core
@pytest.mark.parametrize(("release", "width", "name"), [
    ("zfs-0.6.5", 15, "replacing"), ("illumos-2014", 15, "replacing"), ("illumos-2012", 15, "replacing"),
    ("freebsd-9", 15, "replacing"), ("solaris-2009", 13, "replacing"),
    ("zfs-0.7", 13, "replacing"), ("zfs-2.1", 13, "replacing"), ("zfs-2.2", 15, "replacing-1")])
def test_before_0_7_the_column_is_sized_for_the_names_with_their_ids(release, width, name):
    # max_width uses zpool_vdev_name(..., B_TRUE) before 0.7 (ZM@zfs-0.6.5:
    # cmd/zpool/zpool_main.c:1316; illumos from il:88ecc943b4): `replacing-1` at depth 4 is
    # 15 wide while the row prints `replacing`. solaris-2009's names had no id; 0.7 to 2.1
    # size and print without it, 2.2 with it.
    from ziosim import runner, scenario

    text = ('[scenario]\nname = "t"\nstop = "10s"\nreport_interval = "10s"\n[zfs]\nrelease = "{rel}"\n'
            '[pool]\nallocated = "20G"\nvdevs = [{{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }}]\n'
            '[[action]]\nat = "1s"\ndo = "fail"\ndisk = "sdb"\n'
            '[[action]]\nat = "2s"\ndo = "replace"\nold = "sdb"\nnew = "sdc"\n')
    res = runner.run(scenario.loads(text.format(rel=release)))
    out = zpool_iostat(res, release, samples=[0])
    assert any(ln.split()[:1] == [name] for ln in out.splitlines())
    assert _width(out) == width

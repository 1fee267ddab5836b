"""Which mirror child a read goes to, per release (crates/ziosim-model/src/sim.rs
`try_pick_mirror_child`):

* Solaris, illumos and FreeBSD's legacy ZFS: the read's 2 MiB stripe picks the child
  (`(offset >> 21) % children`), whatever the children's load or speed;
* ZoL 0.6.5: the child with the fewest active I/Os;
* 0.7+: the least loaded child with the rotating/non-rotating seek penalties.
"""

from __future__ import annotations

import pytest

from ziosim import ScenarioError, runner, scenario

pytestmark = pytest.mark.needs_core

MIXED = """[scenario]
name = "mx"
stop = "5s"
[zfs]
release = "{release}"
[pool]
recordsize = "128K"
fill = 0.2
vdevs = [{{ type = "mirror", disks = 2, devices = ["hdd-7200-sata-2014", "samsung-850pro"] }}]
[[workload]]
name = "r"
kind = "random-read"
size = "128K"
threads = 4
arc_hit = 0.0
"""


def _reads(release: str) -> tuple[int, int]:
    res = runner.run(scenario.loads(MIXED.format(release=release), path="mx.toml"))
    ops = {leaf["name"]: sum(c.get("ops", 0) for k, c in leaf["classes"].items() if k.endswith("read"))
           for leaf in res["leaves"]}
    return ops["sda"], ops["sdb"]


@pytest.mark.parametrize("release", ["solaris-2009", "freebsd-9", "illumos-2014"])
def test_old_releases_stripe_reads_by_offset(release):
    hdd, ssd = _reads(release)
    # Random offsets fall in either stripe about equally: the HDD takes half the reads and
    # holds the SSD back to its pace.
    assert 0.4 < hdd / (hdd + ssd) < 0.6, (hdd, ssd)


@pytest.mark.parametrize("release", ["zfs-0.6.5", "zfs-2.2"])
def test_load_aware_releases_send_most_reads_to_the_ssd(release):
    hdd, ssd = _reads(release)
    assert ssd > 5 * hdd, (hdd, ssd)


def test_the_0_7_penalties_are_not_tunables_of_older_releases():
    text = MIXED.format(release="illumos-2014") + "[zfs.tunables]\nzfs_vdev_mirror_rotating_seek_inc = 10\n"
    with pytest.raises(ScenarioError, match="zfs_vdev_mirror_rotating_seek_inc"):
        scenario.loads(text, path="mx.toml")

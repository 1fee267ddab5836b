"""`pool.layout.written_by`: the pool's files as an older release wrote them — 16 KiB
indirect blocks before zfs-0.7 and that release's allocation rotor (docs/scenario.md;
crates/ziosim-model/src/layout.rs)."""

from __future__ import annotations

import pytest

from ziosim import runner, scenario

pytestmark = pytest.mark.needs_core

TEXT = """[scenario]
name = "t"
stop = "scan-done"
[zfs]
release = "{release}"
[pool]
allocated = "4G"
layout = {{ files = [["1G", 1]] {extra} }}
vdevs = [{{ type = "raidz2", disks = 6, device = "hdd-7200-sata-2014" }}]
[[action]]
at = "1s"
do = "scrub"
"""


def scrub(release: str, extra: str = "") -> dict:
    return runner.run(scenario.loads(TEXT.format(release=release, extra=extra), path="t.toml"))["scan"]


def test_an_upgraded_pool_keeps_the_indirect_blocks_its_old_release_wrote():
    new = scrub("zfs-2.2")
    old = scrub("zfs-2.2", ', written_by = "zfs-0.6.5"')
    # Four 1 GiB files of 128K records: 8 L1 + 1 L2 each under 128 KiB indirects, 64 + 1
    # under 16 KiB ones; the scan prefetches every one of them (plus the same dnode and
    # meta-dnode blocks).
    assert (old["prefetch_reads"] - new["prefetch_reads"]) == 4 * (65 - 9)
    # The same bytes of indirect data in more, smaller blocks: a little more to examine
    # (each block rounds up to whole raidz rows).
    assert new["to_examine_bytes"] < old["to_examine_bytes"] < new["to_examine_bytes"] * 1.01
    # A pool the simulated release wrote itself is that release's: zfs-0.6.5 on its own
    # pool has the same contents as zfs-2.2 on a pool zfs-0.6.5 wrote.
    assert scrub("zfs-0.6.5")["to_examine_bytes"] == old["to_examine_bytes"]

"""A sequential rebuild's commands in ``zpool iostat -l/-w/-r`` (QA pass 8, findings 1-2).

`vdev_stat_update` counts the total and disk histograms (the -w read/write columns) by zio
type, a rebuild's included, in every release (ZM@zfs-2.2.0:module/zfs/vdev.c:4906,4908).
The per-priority columns give the rebuild columns of their own only from 2.2: in 2.0 and
2.1 a rebuild read counts as a scrub and a rebuild write as an async write
(ZM@zfs-2.1.0:module/zfs/vdev.c:4588). The results keep one `rebuild` class for both.
"""

from __future__ import annotations

import pytest
from ziosim.report.iostat import _latency_columns, _size_columns, zpool_iostat

SCENARIO = """
[scenario]
name = "rebuild"
stop = "30s"
report_interval = "10s"
[zfs]
release = "{release}"
[pool]
name = "tank"
allocated = "4G"
vdevs = [{{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014", names = ["sda", "sdb"] }}]
[[workload]]
name = "users"
kind = "random-read"
size = "16K"
threads = 1
think = "20ms"
[[action]]
at = "5s"
do = "fail"
disk = "sdb"
[[action]]
at = "8s"
do = "replace"
old = "sdb"
new = "sde"
sequential = true
"""


def _run(release: str) -> dict:
    from ziosim import runner, scenario

    return runner.run(scenario.loads(SCENARIO.format(release=release)))


def _commands(res: dict, key: str) -> int:
    return sum(int(x) for leaf in res["series"]["leaves"] for x in leaf[key])


def _class_commands(res: dict, cls: str) -> int:
    return sum(leaf["classes"].get(cls, {}).get("commands", 0) for leaf in res["leaves"])


def _leaves(res: dict) -> list[int]:
    return list(range(len(res["leaves"])))


@pytest.mark.needs_core
@pytest.mark.parametrize("release", ["zfs-2.1", "zfs-2.2"])
def test_latency_histogram_read_and_write_columns_count_every_command(release):
    res = _run(release)
    assert _class_commands(res, "rebuild") > 1000
    cols = _latency_columns(res, _leaves(res), release)
    # total_wait and disk_wait, read and write: every command the disks completed.
    assert [sum(c) for c in cols[:4]] == [_commands(res, "read_ops"), _commands(res, "write_ops")] * 2


@pytest.mark.needs_core
def test_before_2_2_a_rebuild_read_is_a_scrub_and_a_rebuild_write_an_async_write():
    res = _run("zfs-2.1")
    sda, sde = (next(i for i, leaf in enumerate(res["leaves"]) if leaf["name"] == n) for n in ("sda", "sde"))
    rebuild = {n: res["leaves"][i]["classes"]["rebuild"]["commands"] for n, i in (("sda", sda), ("sde", sde))}
    # -w: the queue histograms of scrub (sda's rebuild reads) and asyncq write (sde's writes).
    assert sum(_latency_columns(res, [sda], "zfs-2.1")[8]) == rebuild["sda"]
    aw = res["leaves"][sde]["classes"].get("async_write", {}).get("commands", 0)
    assert sum(_latency_columns(res, [sde], "zfs-2.1")[7]) == aw + rebuild["sde"]
    # -r: scrub ind/agg (columns 8, 9) and async_write ind/agg (6, 7) hold the 1M rebuild I/O.
    r_sda, r_sde = _size_columns(res, [sda], "zfs-2.1"), _size_columns(res, [sde], "zfs-2.1")
    assert sum(r_sda[8]) + sum(r_sda[9]) == rebuild["sda"]
    assert sum(r_sde[6]) + sum(r_sde[7]) == aw + rebuild["sde"]
    assert r_sda[8][20] > 0  # 1M
    # -l: the scrub wait of sda is no longer "-" while the rebuild reads it.
    lines = zpool_iostat(res, "zfs-2.1", flags=("-l",), samples=[1]).splitlines()
    cells = next(ln for ln in lines if ln.split()[0] == "sda").split()
    assert cells[15] != "-"  # name, 2 capacity, 4 ops/bw, 8 waits, then scrub


@pytest.mark.needs_core
def test_from_2_2_the_rebuild_keeps_its_own_columns():
    res = _run("zfs-2.2")
    cols = _latency_columns(res, _leaves(res), "zfs-2.2")
    assert sum(cols[8]) == _class_commands(res, "scrub")
    assert sum(cols[-1]) == _class_commands(res, "rebuild")


def test_a_disk_both_read_and_written_by_a_rebuild_shares_each_bucket():
    # A dRAID's distributed spare has shares on every disk: a rebuild reads and writes one.
    from ziosim.report.iostat import _split_histo

    h = [0, 5, 3, 0, 2]
    reads, writes = _split_histo(h, 7, 3)
    assert sum(reads) == 7 and [r + w for r, w in zip(reads, writes, strict=True)] == h
    assert all(0 <= r <= x for r, x in zip(reads, h, strict=True))
    assert _split_histo(h, 10, 0) == (h, [0] * 5)
    assert _split_histo(h, 0, 10) == ([0] * 5, h)

"""A `set` action changes a tunable while the pool runs, and ZFS reads its globals where it
uses them (crates/ziosim-model/src/sim.rs `Action::Set`, queue `retune`, scan.rs
`scan_txg_begin`):

* the vdev queue's class limits, NIA knobs and aggregation limit on the next pick;
* the sorted scan's per-vdev byte limit (`zfs_scan_vdev_limit`) and the legacy scan's
  `zfs_top_maxinflight` at the scan's next txg;
* `zfs_scan_vdev_limit` below 1 MiB counts from 2.1 (`MAX(1, limit × data disks)`), not
  before (`MAX(leaves × limit, 1 MiB)`).
"""

from __future__ import annotations

import pytest

from ziosim import runner, scenario

pytestmark = pytest.mark.needs_core

BASE = """[scenario]
name = "t"
stop = "scan-done or 10m"
report_interval = "5s"
[zfs]
release = "{release}"
{tunables}
[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "20G"
[pool]
allocated = "4G"
vdevs = [{{ type = "mirror", disks = 2, device = "hdd" }}, {{ type = "mirror", disks = 2, device = "hdd" }}]
[[workload]]
name = "users"
kind = "random-read"
size = "8K"
threads = 2
arc_hit = 0.0
{before}[[action]]
at = "1s"
do = "scrub"
"""


def _set(at: str, tunable: str, value: object) -> str:
    v = f'"{value}"' if isinstance(value, str) else value
    return f'[[action]]\nat = "{at}"\ndo = "set"\ntunable = "{tunable}"\nvalue = {v}\n'


def _scan_s(release: str = "zfs-2.2", tunables: str = "", extra: str = "", before: str = "") -> float:
    text = BASE.format(release=release, tunables=tunables, before=before) + extra
    res = runner.run(scenario.loads(text, path="t.toml"))
    (scan,) = res["scans"]
    assert scan["state"] == "finished"
    return scan["duration_ns"] / 1e9


@pytest.mark.parametrize(("release", "tunable", "value"), [
    ("zfs-2.2", "zfs_vdev_scrub_max_active", 32),
    ("zfs-2.2", "zfs_scan_vdev_limit", "128K"),
    ("zfs-2.2", "zfs_vdev_nia_delay", 1000),
    ("zfs-0.7", "zfs_top_maxinflight", 1),
])
def test_a_set_during_the_scan_takes_effect(release, tunable, value):
    tun = "[zfs.tunables]\nzfs_scrub_delay = 0\n" if release == "zfs-0.7" else ""
    base = _scan_s(release, tun)
    v = value if not isinstance(value, str) else f'"{value}"'
    from_start = _scan_s(release, (tun or "[zfs.tunables]\n") + f"{tunable} = {v}\n")
    midway = _scan_s(release, tun, _set("3s", tunable, value))
    assert from_start != pytest.approx(base, rel=0.03), (base, from_start)
    # Set after two seconds of scanning, the scan ends between the two.
    # (The users' random reads make each run's scan time vary by a few per cent.)
    lo, hi = sorted((base, from_start))
    assert lo * 0.95 < midway < hi * 1.05 and midway != pytest.approx(base, rel=0.03), (base, midway, from_start)


def test_a_set_before_the_scan_is_the_same_as_from_the_start():
    from_start = _scan_s("zfs-2.2", "[zfs.tunables]\nzfs_vdev_scrub_max_active = 32\n")
    before = _scan_s("zfs-2.2", before=_set("500ms", "zfs_vdev_scrub_max_active", 32))
    assert before == pytest.approx(from_start, rel=0.02)


@pytest.mark.parametrize(("release", "floor_applies"), [("zfs-2.0", True), ("zfs-2.2", False)])
def test_scan_vdev_limit_below_a_mebibyte(release, floor_applies):
    t = {v: _scan_s(release, f'[zfs.tunables]\nzfs_scan_vdev_limit = "{v}"\n') for v in ("64K", "256K")}
    if floor_applies:
        assert t["64K"] == t["256K"], t  # MAX(leaves × limit, 1 MiB) = 1 MiB for both
    else:
        assert t["64K"] > t["256K"] * 1.1, t  # 128 KiB vs 512 KiB in flight per mirror

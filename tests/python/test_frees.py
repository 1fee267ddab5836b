"""Rewritten blocks free their old copies (crates/ziosim-model/src/space.rs;
docs/validation.md, "Frees"): what summary.json says of the run's space, and a sequential
rebuild beside a writer that ends."""

from __future__ import annotations

import pytest

from ziosim import runner, scenario
from ziosim.report.summary import build_summary

pytestmark = pytest.mark.needs_core

TEXT = """[scenario]
name = "t"
stop = "scan-done"
[zfs]
release = "zfs-2.2"
[pool]
allocated = "2G"
vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]
[[workload]]
name = "w"
kind = "random-write"
size = "1M"
rate = 50
region = { length = "2G" }
[[action]]
at = "10s"
do = "replace"
old = "sdb"
new = "sdc"
sequential = true
"""


def test_a_rebuild_beside_a_rewriter_copies_what_is_live_and_ends():
    sc = scenario.loads(TEXT, path="t.toml")
    res = runner.run(sc)
    summ = build_summary(res, runner.meta(sc))
    w = summ["pool"]["written"]
    assert set(w) == {"live_bytes", "live_ranges", "freed_bytes", "records_followed", "unfollowed_bytes",
                      "layout_freed_bytes"}
    # 2 GiB of 1 MiB records rewritten at 50 MiB/s: one live copy each at most, the rest freed.
    assert 0 < w["live_bytes"] <= (2 << 30) + (256 << 20) and w["freed_bytes"] > 0
    assert w["unfollowed_bytes"] == 0
    rb = res["rebuilds"][0]
    assert rb["state"] == "complete"
    # The layout (2 GiB) and what was live as each metaslab was loaded: far less than the
    # writer wrote while the rebuild ran (before frees, every byte of it was copied too).
    wrote = summ["workloads"]["w"]["bytes"]
    assert rb["rebuilt_bytes"] < (2 << 30) + w["live_bytes"] + (256 << 20) < (2 << 30) + wrote

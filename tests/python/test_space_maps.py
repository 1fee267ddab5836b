"""Syncs write the space maps their allocations and frees dirty
(crates/ziosim-model/src/spacemap.rs; docs/validation.md, "Space maps"): what
summary.json and the summary's `wrote:` line say of them."""

from __future__ import annotations

import pytest

from ziosim import runner, scenario
from ziosim.report.summary import build_summary, summary_text

pytestmark = pytest.mark.needs_core

TEXT = """[scenario]
name = "sm"
stop = "20s"
[zfs]
release = "RELEASE"
[pool]
allocated = "20G"
vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]
log = [{ device = "intel-s3700" }]
[[workload]]
name = "w"
kind = "fsync-write"
size = "4K"
threads = 4
arc_hit = 1
"""


def _run(release: str) -> tuple[dict, dict, str]:
    sc = scenario.loads(TEXT.replace("RELEASE", release), path="t.toml")
    res = runner.run(sc)
    meta = runner.meta(sc)
    summ = build_summary(res, meta)
    return res, summ, summary_text(res, meta, summ)


@pytest.mark.parametrize("release", ["zfs-0.8", "zfs-2.2"])
def test_a_writer_s_syncs_write_space_maps(release):
    res, summ, text = _run(release)
    t = summ["txg"]
    # Every sync allocated (its records, and the SLOG's log blocks) and freed: some
    # space-map blocks each, three copies, counted within the metadata.
    assert t["syncs"] >= 3
    assert t["space_map_blocks"] >= 3 * t["syncs"]
    assert 0 < t["space_map_bytes"] < t["metadata_bytes"]
    assert t["space_map_blocks"] < t["metadata_blocks"]
    wrote = next(line for line in text.splitlines() if line.strip().startswith("wrote:"))
    assert f"in {t['space_map_blocks']})" in wrote and "space maps" in wrote


def test_a_read_only_run_writes_no_space_maps():
    text = TEXT.replace('kind = "fsync-write"', 'kind = "random-read"').replace("RELEASE", "zfs-0.8")
    res = runner.run(scenario.loads(text, path="t.toml"))
    assert res["txg"]["space_map_blocks"] == 0

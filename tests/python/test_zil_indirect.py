"""INDIRECT log records and a commit's log blocks (crates/ziosim-model/src/zil.rs, txg.rs,
queue/order.rs).

* `dmu_sync` writes an INDIRECT record's block in place while its txg is still open; the
  dirty record then carries that block pointer (`DR_OVERRIDDEN`) and the txg's sync writes
  no data for it, so each block is written once.
* A commit's log blocks are queued in one instant; they reach the SLOG in the order they
  were issued (ZFS's distinct `io_timestamp`s, or 2.2's list), so a PLP SSD sees the
  sequential stream the log is, whichever class the blocks are in.
"""

from __future__ import annotations

import pytest

from ziosim import runner, scenario

pytestmark = pytest.mark.needs_core


def _run(text: str, **sets: str) -> dict:
    for k, v in sets.items():
        text = text.replace(k, v)
    return runner.run(scenario.loads(text, path="t.toml"))


FSYNC_128K = """[scenario]
name = "ind"
stop = "20s"
report_interval = "5s"
[zfs]
release = "zfs-2.2"
logbias = "LOGBIAS"
[pool]
allocated = "100G"
vdevs = [{ type = "disk", device = "hdd-7200-sata-2014" }]
[[workload]]
name = "w"
kind = "fsync-write"
size = "128K"
threads = 1
arc_hit = 1
"""


@pytest.mark.parametrize("logbias", ["latency", "throughput"])
def test_a_dmu_synced_block_is_not_written_again_by_its_txg(logbias):
    res = _run(FSYNC_128K, LOGBIAS=logbias)
    user = res["workloads"][0]["bytes"]
    z = res["zil"]
    assert z["indirect_writes"] > 1000
    # Every commit wrote its block in place (SYNC_WRITE)...
    assert z["indirect_bytes"] >= user
    # ...and the txg syncs wrote only what was not (a block whose txg was already syncing
    # when its commit came: dmu_sync_late_arrival), not the user data again; they still
    # write the blocks' indirect blocks, whose pointers changed.
    txg_data = res["txg"]["data_bytes"]
    assert txg_data < 0.1 * user, (txg_data, user)
    assert res["txg"]["metadata_blocks"] > 0


SLOG_4M = """[scenario]
name = "lb"
stop = "5s"
report_interval = "5s"
[zfs]
release = "RELEASE"
[devices.ssd]
like = "intel-s3700"
[pool]
allocated = "100G"
vdevs = [{ type = "mirror", disks = 2, device = "hdd-7200-sata-2014" }]
log = [{ device = "ssd" }]
[[workload]]
name = "w"
kind = "fsync-write"
size = "4M"
threads = 1
arc_hit = 1
"""


def test_a_big_commit_streams_to_the_slog_in_order():
    # 2.3 queues every log block of a 4 MiB commit as SYNC_WRITE (zil_slog_bulk = 64M), 2.2
    # most of them as ASYNC_WRITE: both are one sequential stream on the SSD.
    rate = {r: _run(SLOG_4M, RELEASE=r)["workloads"][0]["bytes_per_s"] for r in ("zfs-2.2", "zfs-2.3")}
    assert rate["zfs-2.3"] > 0.85 * rate["zfs-2.2"], rate
    assert rate["zfs-2.3"] > 350e6, rate  # an S3700 writes ~460 MB/s sequentially

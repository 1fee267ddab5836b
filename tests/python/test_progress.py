"""The progress bar of `ziosim run` (docs/output.md, first paragraph): simulated time, or
for a run that stops at `scan-done` the scan's share done as `zpool status` counts it."""

import pytest

from ziosim import cli, runner, scenario

SCRUB = """
[scenario]
stop = "scan-done or 1h"
[zfs]
release = "{release}"
[pool]
fill = 0.5
vdevs = [{{ type = "disk", device = "hdd-7200-sata-2014" }}]
[[action]]
at = "0s"
do = "scrub"
"""


def _shown(bar):
    task = bar.bar.tasks[0]
    return task.fields["sim"], task.completed / task.total


def test_a_sorted_scan_shows_its_issued_share():
    """QA: a 0.8+ resilver's bar said "100.0% scanned" for most of the run — the sorted
    scan's walk scans everything early, then issues. ZFS's "% done" from 0.8 is issued of
    what it will issue (the total less what a resilver skips)."""
    bar = cli._Progress(True, "t")
    bar.scan(1000, 1000, 372, 0, True)
    bar.update(5_000_000_000, 10_000_000_000, 7)
    assert _shown(bar) == ("5.0s simulated, 37.2% issued", 0.372)
    bar.scan(1000, 1000, 186, 500, True)  # half of it skipped: 186 of 500 issued
    bar.update(5_000_000_000, 10_000_000_000, 7)
    assert _shown(bar) == ("5.0s simulated, 37.2% issued", 0.372)


def test_a_legacy_scan_keeps_its_scanned_share():
    bar = cli._Progress(True, "t")
    bar.scan(372, 1000, 372, 0, False)
    bar.update(5_000_000_000, 10_000_000_000, 7)
    assert _shown(bar) == ("5.0s simulated, 37.2% scanned", 0.372)


@pytest.mark.parametrize("release, form", [("zfs-2.2", "issued"), ("zfs-0.7", "scanned")])
def test_the_first_frame_of_a_scan_shows_its_share(fake_core, monkeypatch, release, form):
    """QA: the first frame read "227.9s/21600.0s simulated" — the bar was drawn before it
    heard of the scan that started in that chunk of events."""
    sorted_scan = release == "zfs-2.2"
    monkeypatch.setattr(fake_core.Simulation, "scan_progress", property(lambda s: (1000, 1000, 500, 0, sorted_scan)),
                        raising=False)
    sc = scenario.loads(SCRUB.format(release=release))
    bar = cli._Progress(True, "t")
    frames = []

    def update(*a):
        cli._Progress.update(bar, *a)
        frames.append(_shown(bar)[0])

    with bar:
        runner.run(sc, on_progress=update, on_scan=bar.scan)
    assert frames and all(f.endswith(form) for f in frames), frames

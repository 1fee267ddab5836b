"""Every example output in docs/output.md is regenerated from the fixture and must match.

Each example in the doc is a fenced ``text`` block preceded by ``<!-- example: NAME -->``;
its first line is the command that shows that view. ``UPDATE_SNAPSHOTS=1`` rewrites the
blocks in place from the current renderer.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ziosim.report import render_text
from ziosim.report.iostat import os_iostat_x, zpool_iostat, zpool_iostat_r, zpool_iostat_w
from ziosim.report.quantize import keyed_quantize
from ziosim.report.status import zpool_status, zpool_status_config
from ziosim.report.status_json import zpool_status_json
from ziosim.report.summary import redundancy_lines, summary_text

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "output.md"
FIXTURES = ROOT / "tests" / "python" / "fixtures"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
BLOCK = re.compile(r"(<!-- example: (?P<name>[\w.-]+) -->\n```text\n)(?P<body>.*?)(```)", re.S)


REDUNDANCY = {"vdev": "mirror-0", "tolerance": 1, "margin": 1, "min_margin": 0, "tolerance_at_worst": 1, "short_ns": 310421180977,
              "exposed_ns": 310421180977, "lost_ns": 0, "first_short_ns": 5000000000,
              "restored_ns": 315421180977, "exposed_read_bytes": 22107328512, "expected_read_errors": None,
              "p_read_error": None, "p_loss_by_failure": 4.33768e-08}


def examples() -> dict[str, str]:
    r = json.loads((FIXTURES / "results_raidz2.json").read_text())
    m = json.loads((FIXTURES / "meta_raidz2.json").read_text())
    st = json.loads((FIXTURES / "status_snapshots.json").read_text())
    slog = json.loads((FIXTURES / "results_slog.json").read_text())
    special = json.loads((FIXTURES / "results_special.json").read_text())
    one = [1]  # the second interval: the scrub has started
    return {
        "header": "\n".join(render_text(r, m, views=()).splitlines()[:2]) + "\n",
        "status": "$ zpool status tank\n" + zpool_status_config(r, "zfs-2.2"),
        "status-slog": "$ zpool status tank\n" + zpool_status_config(slog, "zfs-2.2"),
        "status-slog-2009": "$ zpool status tank      # release solaris-2009\n"
        + zpool_status_config(slog, "solaris-2009"),
        "iostat-slog": "$ zpool iostat -v tank 10\n" + zpool_iostat(slog, "zfs-2.2", samples=one),
        "status-special": "$ zpool status tank\n" + zpool_status_config(special, "zfs-2.2"),
        "iostat-special": "$ zpool iostat -v tank 10\n" + zpool_iostat(special, "zfs-2.2", samples=one),
        "iostat-slog-2009": "$ zpool iostat -v tank 10      # release solaris-2009\n"
        + zpool_iostat(slog, "solaris-2009", samples=one),
        "status-resilver": "$ zpool status tank\n"
        + zpool_status(st["resilver"], "zfs-2.2", "tank", st["epoch_s"]),
        "status-resilver-0.6.5": "$ zpool status tank      # release zfs-0.6.5\n"
        + zpool_status(st["resilver"], "zfs-0.6.5", "tank", st["epoch_s"]),
        "status-paused-0.7": "$ zpool status tank      # release zfs-0.7\n"
        + zpool_status(st["paused_scrub"], "zfs-0.7", "tank", st["epoch_s"]),
        "status-rebuild-2.1": "$ zpool status tank      # release zfs-2.1\n"
        + zpool_status(st["rebuild"], "zfs-2.1", "tank", st["epoch_s"]),
        "status-json": "$ zpool status -j -T u tank | jq .      # release zfs-2.3\n"
        + json.dumps(json.loads(zpool_status_json(st["resilver"], "zfs-2.3", "tank", st["epoch_s"])),
                     indent=2) + "\n",
        "status-json-int": "$ zpool status -j --json-int -T u tank      # release zfs-2.3\n"
        + zpool_status_json(st["paused_scrub"], "zfs-2.3", "tank", st["epoch_s"], as_int=True),
        "iostat": "$ zpool iostat -v tank 10\n" + zpool_iostat(r, "zfs-2.2", samples=one),
        "iostat-legacy": "$ zpool iostat -v tank 10      # release zfs-0.6.5\n"
        + zpool_iostat(r, "zfs-0.6.5", samples=one),
        "iostat-l": "$ zpool iostat -vl tank 10\n"
        + zpool_iostat(r, "zfs-2.2", flags=("-l",), samples=one),
        "iostat-l-0.7": "$ zpool iostat -l tank 10      # release zfs-0.7\n"
        + zpool_iostat(r, "zfs-0.7", flags=("-l",), verbose=False, samples=one),
        "iostat-q": "$ zpool iostat -vq tank 10\n"
        + zpool_iostat(r, "zfs-2.2", flags=("-q",), samples=one),
        "iostat-w": "$ zpool iostat -w tank\n" + zpool_iostat_w(r, "zfs-2.2"),
        "iostat-r": "$ zpool iostat -r tank\n" + zpool_iostat_r(r, "zfs-2.2"),
        "iostat-x-linux": "$ iostat -dx 10\n" + os_iostat_x(r, "linux", samples=one),
        "iostat-x-freebsd": "$ iostat -x 10\n" + os_iostat_x(r, "freebsd", samples=one),
        "iostat-x-illumos": "$ iostat -xn 10\n" + os_iostat_x(r, "illumos", samples=one),
        # the note, then the release's default view (first block only)
        "note": render_text(r, dict(m, release="illumos-2014"),
                            views=("iostat-l",)).split("\n", 2)[2].lstrip("\n")
        .split("\n\n")[0] + "\n",
        "latency": '$ dtrace: @["users"] = quantize(latency_ns)\n\n'
        + keyed_quantize(("users",), r["workloads"][0]["latency_log2"]),
        "summary": "$ ziosim summary\n" + summary_text(r, m),
        # The last lines of a summary after a mirror lost a side (a 20 GiB pool of
        # hdd-7200-sata-2014 disks: sdb fails at 5 s, replaced at 60 s).
        "redundancy": "$ ziosim summary      # its last lines\n" + "\n".join(redundancy_lines({"pool": {"redundancy": [REDUNDANCY]}})) + "\n",
    }


def test_doc_examples_are_current():
    text = DOC.read_text()
    found = {m.group("name") for m in BLOCK.finditer(text)}
    expected = examples()
    assert found == set(expected), f"doc examples {sorted(found)} != {sorted(expected)}"
    if UPDATE:
        DOC.write_text(BLOCK.sub(lambda m: m.group(1) + expected[m.group("name")] + m.group(4),
                                 text))
        return
    for m in BLOCK.finditer(text):
        assert m.group("body") == expected[m.group("name")], (
            f"docs/output.md example {m.group('name')!r} is stale; UPDATE_SNAPSHOTS=1 to refresh")

"""docs/guide.md: every output block is the output of the command it shows, regenerated here.

One test per section, each with its own marker (``<!-- guide-time: NAME -->``), so a stale
block names its section. Long outputs are shortened by code, never by hand: ``_excerpt``
keeps named line ranges and puts one "…" line where it left lines out, and a shown ``grep``
or ``awk`` is applied as that tool would. ``UPDATE_SNAPSHOTS=1`` rewrites the blocks.

Each test also lists the figures the section's prose quotes: each must be in the regenerated
output (or the input file it reads) and in the prose, so the text cannot drift from the
blocks; where the prose compares figures in words ("more than three times as long"), the
test asserts the comparison.
"""

from __future__ import annotations

import os
import re
from typing import Optional

import pytest
from typer.testing import CliRunner

from conftest import ROOT, check_doc_blocks

GUIDE = ROOT / "docs" / "guide.md"
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
GAP = "…"

needs_core = pytest.mark.needs_core


def _invoke(*args):
    from ziosim.cli import app

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env=ENV)


def _ok(r, code: int = 0):
    assert r.exit_code == code, f"exit {r.exit_code}:\n{r.stderr}\n{r.stdout}"
    return r


def _find(lines: list[str], pattern: str, start: int = 0, last: bool = False) -> int:
    """Index of the first (or last) line at or after ``start`` that matches ``pattern``."""
    hits = [i for i in range(start, len(lines)) if re.search(pattern, lines[i])]
    assert hits, f"no line matches {pattern!r} after line {start}"
    return hits[-1] if last else hits[0]


def _excerpt(text: str, ranges: list[tuple[int, int]]) -> str:
    """The lines of ``text`` in the half-open index ranges, in order; one "…" line stands
    for each run of lines left out between them or after the last."""
    lines = text.splitlines()
    out: list[str] = []
    at = 0
    for lo, hi in ranges:
        assert at <= lo < hi <= len(lines), (at, lo, hi, len(lines))
        if lo > at:
            out.append(GAP)
        out.extend(lines[lo:hi])
        at = hi
    if at < len(lines):
        out.append(GAP)
    return "\n".join(out) + "\n"


def _grep(text: str, pattern: str) -> str:
    """``grep -E PATTERN`` over the lines of ``text``."""
    return "".join(line + "\n" for line in text.splitlines() if re.search(pattern, line))


def _first_seen(text: str) -> str:
    """``awk '!seen[$0]++'``: each line once, where it first appears."""
    seen: dict[str, None] = {}
    for line in text.splitlines():
        seen.setdefault(line, None)
    return "".join(line + "\n" for line in seen)


def _check(marker: str, blocks: dict[str, str], quoted: Optional[list[str]] = None, inputs: str = "") -> None:
    """The section's blocks are these outputs, and every figure its prose quotes is in them
    (or in ``inputs``, the text of input files the prose quotes without showing)."""
    check_doc_blocks(GUIDE, marker, blocks, UPDATE)
    prose = " ".join(re.sub(r"```\w*\n.*?```", "", GUIDE.read_text(encoding="utf-8"), flags=re.S).split())
    shown = "".join(blocks.values()) + inputs
    for figure in quoted or []:
        assert figure in shown, f"the guide quotes {figure!r}, which its {marker} outputs no longer print"
        assert figure in prose, f"{figure!r} is listed as quoted but the guide's prose does not quote it"


def _secs(text: str) -> int:
    """``00:58:16`` → seconds."""
    h, m, s = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


def _duration_s(text: str) -> float:
    """A duration as the sweep view prints it (``583ms``, ``11.1s``) → seconds."""
    n, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(n) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


# ----------------------------------------------------------------------------- From your pool


@needs_core
def test_from_your_pool(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the commands name the files relative to the repository
    small = "tests/python/fixtures/import/zfs-2.1-small-resilver.txt"
    straggler = "tests/python/fixtures/import/zfs-2.1-iostat-x-straggler.txt"
    out = tmp_path / "tank.toml"

    r = _ok(_invoke("import", small, "--predict", "--out", out))
    predict = r.stdout
    r = _ok(_invoke("import", straggler, "--predict", "--stop", "1h", "--out", out))
    # A terminal shows stderr (the straggler, the file written) before the run's comparison.
    stopped = r.stderr.replace(str(out), "tank.toml") + r.stdout

    assert "reaches 29.98% after" in predict
    assert "did not reach 10.64%" in stopped and "modelled as device sdc-slow" in stopped
    blocks = {
        "resilver-input": f"$ cat {small}\n" + (ROOT / small).read_text(encoding="utf-8"),
        "resilver-predict": f"$ ziosim import {small} --predict --out tank.toml\n{predict}",
        "straggler-predict": f"$ ziosim import {straggler} --predict --stop 1h --out tank.toml\n{stopped}",
    }
    _check("guide-pool", blocks, [
        "29.98% done after ≈ 30s", "00:01:10 to go", "19s in all", "pace × 5.16",
        "1m08s", "141.3 ms", "5.8 ms", "99.6", "1.78 revolutions", "10.64", "18h28m", "9.87T"],
        inputs=(ROOT / straggler).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- How long


@needs_core
def test_how_long(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    sick = _ok(_invoke("run", "scenarios/resilver-straggler.toml", "--views", "status,summary",
                       "--no-plots", "-q", "--out", tmp_path / "sick")).stdout
    healthy = _ok(_invoke("run", "scenarios/resilver-straggler.toml",
                          "--set", "devices.sick.read_recovery_probability=0", "--views", "status,summary",
                          "--no-plots", "-q", "--out", tmp_path / "healthy")).stdout
    # One run for both rebuild blocks: each shown command's grep keeps only its own view's lines.
    rebuild = _ok(_invoke("run", "scenarios/rebuild-mirror-zfs-2.1.toml", "--set", "pool.allocated=20G",
                          "--views", "status,summary", "--no-plots", "-q", "--out", tmp_path / "rebuild")).stdout
    rebuild_summary = rebuild

    # The straggler run: its header, the first zpool status whole, the last one to its
    # scan line, and the users' latency lines of the summary.
    lines = sick.splitlines()
    first = _find(lines, r"^\$ zpool status")
    first_end = _find(lines, r"^errors:", first) + 1
    last = _find(lines, r"^\$ zpool status", last=True)
    last_scan = _find(lines, r"^  scan:", last) + 1
    summary = _find(lines, r"^\$ ziosim summary")
    users = _find(lines, r"^users:", summary)
    sick_shown = _excerpt(sick, [(0, first_end), (last, last_scan), (summary, users + 4)])
    pattern = r"^  (scan: resilvered|lat)"
    healthy_shown = _grep(healthy, pattern)
    rebuild_shown = _first_seen(_grep(rebuild, r"^  scan:"))
    red_pattern = r"^redundancy|^  (no margin|risk)"
    redundancy_shown = _grep(rebuild_summary, red_pattern)
    windows = re.findall(r"^redundancy: (mirror-\d) ran short for (\S+) ", redundancy_shown, re.M)
    assert [w[0] for w in windows] == ["mirror-0", "mirror-1"], redundancy_shown

    took = {name: _secs(re.search(r"resilvered \S+ in (\d\d:\d\d:\d\d)", text).group(1))
            for name, text in (("sick", sick_shown), ("healthy", healthy_shown))}
    assert took["sick"] > 3 * took["healthy"]  # "more than three times as long"
    rb = [re.search(p, rebuild_shown, re.M) for p in (r"resilvered \(mirror-0\) \S+ in (\S+) ",
                                                     r"scrub repaired \S+ in (\S+) ", r"^  scan: resilvered \d\S* in (\S+) ")]
    assert all(rb), rebuild_shown
    seq, scrub, heal = (_secs(m.group(1)) for m in rb)
    assert seq < heal < seq + scrub  # redundancy back sooner; verified later than a healing resilver

    blocks = {
        "straggler-resilver": "$ ziosim run scenarios/resilver-straggler.toml --views status,summary\n" + sick_shown,
        "straggler-healthy": ("$ ziosim run scenarios/resilver-straggler.toml "
                              "--set devices.sick.read_recovery_probability=0 --views status,summary "
                              f"| grep -E '{pattern}'\n" + healthy_shown),
        "rebuild": ("$ ziosim run scenarios/rebuild-mirror-zfs-2.1.toml --set pool.allocated=20G --views status "
                    "| grep '^  scan:' | awk '!seen[$0]++'\n" + rebuild_shown),
        "rebuild-redundancy": ("$ ziosim run scenarios/rebuild-mirror-zfs-2.1.toml --set pool.allocated=20G "
                               f"--views summary | grep -E '{red_pattern}'\n" + redundancy_shown),
    }
    scenarios = "".join((ROOT / "scenarios" / f).read_text(encoding="utf-8")
                        for f in ("resilver-straggler.toml", "rebuild-mirror-zfs-2.1.toml"))
    _check("guide-time", blocks, [
        "7.76% done, 00:54:03 to go", "resilvered 50.1G in 00:56:50", "00:16:16", "p99=172ms", "p99=45.1ms",
        "00:01:14", "00:01:39", "00:02:03", "200G", "60G", "1m24s", "2m03s"], inputs=scenarios)


@needs_core
def test_draid_or_raidz(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    pattern = r"^(scan|redundancy):|lat during"
    outs = {}
    for name in ("draid", "raidz2"):
        f = f"scenarios/draid/{name}2-spare.toml" if name == "draid" else "scenarios/draid/raidz2-spare.toml"
        out = _ok(_invoke("run", f, "--set", "pool.fill=0.05", "--views", "summary", "--no-plots", "-q",
                          "--out", tmp_path / name)).stdout
        outs[name] = (f"$ ziosim run {f} --set pool.fill=0.05 --views summary | grep -E '{pattern}'\n"
                      + _grep(out, pattern))
    short = {k: re.search(r"ran short for (\S+) ", v).group(1) for k, v in outs.items()}
    p99 = {k: re.search(r"lat during scan .* p99=(\S+) ", v).group(1) for k, v in outs.items()}
    mins = {k: int(m.group(1)) * 60 + int(m.group(2))
            for k, v in short.items() for m in [re.fullmatch(r"(\d+)m(\d+)s", v)]}
    assert mins["draid"] * 3 < mins["raidz2"], short  # redundancy back several times sooner
    assert _duration_s(p99["draid"]) > _duration_s(p99["raidz2"]), p99  # "the price is paid by everyone"
    rebuild = re.search(r"^scan: rebuild \S+ finished in (\S+) ", outs["draid"], re.M).group(1)
    scrub = re.search(r"^scan: scrub finished in (\S+) ", outs["draid"], re.M).group(1)
    as_s = lambda t: sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in re.findall(r"(\d+)([hms])", t))
    assert as_s(scrub) > as_s(rebuild)  # "the scrub … takes longer than the rebuild"
    _check("guide-draid", outs, [short["draid"], short["raidz2"], p99["draid"], p99["raidz2"]])


# ----------------------------------------------------------------------------- Latency


@needs_core
def test_latency(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = _ok(_invoke("run", "scenarios/default.toml", "--views", "latency,summary", "--no-plots", "-q",
                       "--out", tmp_path / "default")).stdout
    lines = text.splitlines()
    before = _find(lines, r"# before the scan")
    summary = _find(lines, r"^\$ ziosim summary")
    users = _find(lines, r"^users:", summary)
    # The whole-run histogram is left out: the before and during windows answer the question.
    shown = _excerpt(text, [(0, 2), (before, users + 4)])
    assert "# during the scan" in shown and "lat during scan" in shown and "after the scan" not in shown
    blocks = {"scrub-latency": "$ ziosim run scenarios/default.toml --views latency,summary\n" + shown}
    _check("guide-latency", blocks, ["33554432", "p99=55.6ms", "p99=94.4ms", "p50=19.4ms", "p50=33.0ms",
                                     "181.33 ops/s", "110.31 ops/s"])


# ----------------------------------------------------------------------------- Tunables


@needs_core
def test_which_tunables(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    listing = _ok(_invoke("tunables", "--release", "zfs-2.2", "--platform", "linux")).stdout
    pattern = r"^NAME|^zfs_(scan_vdev_limit|vdev_scrub_max_active|vdev_nia_credit|vdev_nia_delay" \
              r"|scrub_min_time_ms|resilver_min_time_ms) "
    listed = _grep(listing, pattern)
    assert len(listed.splitlines()) == 7

    out = tmp_path / "advise"
    advice = _ok(_invoke("advise", "cases/busy-scrub/default-delay.toml", "--stop", "2m",
                         "--limit", "users.p99<=200ms", "--set", "zfs.tunables.zfs_scrub_delay=0,1,2",
                         "--out", out, "--jobs", "2", "-q")).stdout
    advice = advice.replace(str(out), "out/advise-busy-scrub-default-delay")  # the default --out
    assert "recommended: zfs_scrub_delay=0*" in advice

    blocks = {
        "tunables": f"$ ziosim tunables --release zfs-2.2 --platform linux | grep -E '{pattern}'\n" + listed,
        "advise": ("$ ziosim advise cases/busy-scrub/default-delay.toml --stop 2m --limit 'users.p99<=200ms' "
                   "--set zfs.tunables.zfs_scrub_delay=0,1,2\n" + advice),
    }
    _check("guide-tunables", blocks, ["~10d20h", "~16h10m", "24.6ms -> 47.2ms", "16777216"])


# ----------------------------------------------------------------------------- Is it safe?


@needs_core
def test_is_it_safe(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    metrics = "elapsed,p99,zil_commit,at_risk_max,log_space"
    view = _ok(_invoke("sweep", "scenarios/sweeps/nfs-sync.toml", "--metrics", metrics,
                       "--out", tmp_path / "sweep", "--jobs", "2", "-q")).stdout
    conf = "tests/python/fixtures/import/zfs.conf"
    audit = _invoke("import", "--release", "zfs-2.2", conf)
    _ok(audit, 1)  # an UNSAFE, UNKNOWN, OUT OF RANGE or WRONG PLATFORM SYNTAX line
    rows = [r for r in (line.split() for line in view.splitlines()) if r[:1] and r[0].isdigit()]
    seconds = {(r[1], r[2]): _duration_s(r[3]) for r in rows}  # (sync, slog) → ELAPSED
    # "nearly as fast" as sync=disabled with the S3700, and slower with the 850 Pro
    assert seconds[("disabled", "none")] < seconds[("standard", "s3700")] < 1.5 * seconds[("disabled", "none")]
    assert seconds[("standard", "850pro")] > 2 * seconds[("standard", "s3700")]
    pattern = r"^LINE|UNSAFE"
    blocks = {
        "nfs-sync": f"$ ziosim sweep scenarios/sweeps/nfs-sync.toml --metrics {metrics}\n{view}",
        "audit": f"$ ziosim import --release zfs-2.2 {conf} 2>/dev/null | grep -E '{pattern}'\n"
                 + _grep(audit.stdout, pattern),
    }
    _check("guide-safe", blocks, ["10.8s", "735ms", "2.00s", "586ms", "18.7M", "0B", "106M", "33.7M",
                                  "zfs_no_scrub_io"])


# ----------------------------------------------------------------------------- What it does not know


def test_the_misses_the_guide_names_are_in_validation_md():
    """The last section names two misses without figures; docs/validation.md must still
    list them as misses (drop the sentence when a case turns green)."""
    table = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    assert re.search(r"^\| scrub-latency \| largest VFS read latency during the scrub .*\*\*MISS\*\* \|$", table, re.M)
    assert re.search(r"^\| nfs-zil \(`cases/nfs-zil/`\) \| 85 MB small-file NFS copy.* MISS \(", table, re.M)
    page = GUIDE.read_text(encoding="utf-8")
    assert "docs/validation.md" in page

"""Output directories and files: what `--out` may replace, and the modes outputs get.

`ziosim run --out DIR` replaces DIR whole (atomically), so it must never be a directory
holding anything ziosim did not write, nor the current directory or one above it
(/tmp/qa-cli/REPORT.md, finding 2). Every output — run and sweep point directories,
sweep.json, sweep.parquet, advice.json, tradeoff.svg, an imported scenario — gets the mode
the umask gives, not mkstemp's 0600 / mkdtemp's 0700 (finding 3).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ziosim.report.files as files
from ziosim.cli import app
from ziosim.sweep.execute import write_atomic

from conftest import ROOT

needs_core = pytest.mark.needs_core
ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
FIXTURES = Path(__file__).resolve().parent / "fixtures"

SMALL = """\
[scenario]
name = "small"
seed = 0
stop = "5s"
report_interval = "1s"

[zfs]
release = "zfs-2.2"

[devices.hdd]
like = "hdd-7200-sata-2014"
capacity = "20G"

[pool]
name = "tank"
ashift = 12
recordsize = "128K"
fill = 0.2
vdevs = [{ type = "mirror", disks = 2, device = "hdd" }]

[[workload]]
name = "users"
kind = "random-read"
size = "8K"
threads = 2

[[action]]
at = "1s"
do = "scrub"
"""


def invoke(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env=ENV)


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL, encoding="utf-8")
    return p


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.fixture(params=[0o027, 0o002])
def umask(request):
    """Run the test under this umask (the cached reading of it is reset around the test)."""
    old = os.umask(request.param)
    files._umask.cache_clear()
    try:
        yield request.param
    finally:
        os.umask(old)
        files._umask.cache_clear()


# ----------------------------------------------------------------------------- run --out


@needs_core
def test_run_refuses_a_directory_it_did_not_write_before_running(small, tmp_path):
    """The tester's thesis.tex: gone after `ziosim run small.toml --out important`."""
    important = tmp_path / "important"
    important.mkdir()
    (important / "thesis.tex").write_text("data\n")
    r = invoke("run", small, "--out", important, "-q")
    assert r.exit_code == 2 and r.stdout == ""  # refused before the run: no report printed
    assert r.stderr == (f"error: --out: {important} — holds thesis.tex, which ziosim did not write; allowed: a new "
                        "or empty directory, or one a previous `ziosim run` wrote (run.json and its files only)\n")
    assert [p.name for p in important.iterdir()] == ["thesis.tex"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["important", "small.toml"]


@needs_core
@pytest.mark.parametrize("rel", [".", ".."])
def test_run_refuses_the_current_directory_and_its_parent(small, tmp_path, monkeypatch, rel):
    """`--out .` and `--out ..` were an internal error out of rename(2) (EBUSY)."""
    here = tmp_path / "sb" / "sub"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    r = invoke("run", small, "--out", rel, "-q")
    assert r.exit_code == 2, r.stderr
    assert r.stderr == (f"error: --out: {rel} — is the current directory or contains it, which a run would replace; "
                        "allowed: a directory that neither is nor contains the current one, e.g. out/NAME\n")
    assert list(here.iterdir()) == [] and [p.name for p in (tmp_path / "sb").iterdir()] == ["sub"]


@needs_core
def test_run_replaces_its_own_previous_output_and_fills_an_empty_directory(small, tmp_path):
    out = tmp_path / "r"
    r = invoke("run", small, "--out", out, "-q")
    assert r.exit_code == 0, r.stderr
    first = sorted(p.name for p in out.iterdir())
    # Every file of a run with a scrub counts as ziosim's (else the next run would be refused).
    assert all(files.OWN_FILE.fullmatch(n) for n in first), first
    assert {"scan-progress.svg", "latency-heatmap-users.svg", "latency-phases-users.svg", "scan.parquet"} <= set(first)
    r = invoke("run", small, "--out", out, "--seed", "7", "--no-plots", "-q")
    assert r.exit_code == 0, r.stderr
    assert json.loads((out / "run.json").read_text())["seed"] == 7
    assert not list(out.glob("*.svg"))  # replaced whole: the old plots went with it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "small.toml"]  # no temporary directories left
    empty = tmp_path / "empty"
    empty.mkdir()
    assert invoke("run", small, "--out", empty, "-q").exit_code == 0
    assert (empty / "summary.json").is_file()


@needs_core
def test_run_refuses_a_file(small, tmp_path):
    r = invoke("run", small, "--out", small, "-q")
    assert r.exit_code == 2 and r.stderr.startswith(f"error: --out: {small} — is a file; allowed: ")
    assert small.read_text() == SMALL


# ----------------------------------------------------------------------------- an --out ziosim cannot write


def _no_run(monkeypatch):
    """A run reached is a failure of the test: the --out should have been refused first."""
    import ziosim.runner

    def ran(*a, **k):
        raise AssertionError("the simulation ran before --out was checked")

    monkeypatch.setattr(ziosim.runner, "run", ran)


# Under a regular file (ENOTDIR), and on Linux under /proc, where even root cannot create
# (a read-only mount says EROFS the same way): refused before the run, one line, exit 2.
UNWRITABLE = [("file", "{T}/small.toml/out", "{T}/small.toml is not a directory")]
if os.path.isdir("/proc/self"):
    UNWRITABLE.append(("proc", "/proc/ziosim-out/x", "cannot write in /proc (No such file or directory)"))


@needs_core
@pytest.mark.parametrize("where, out, why", UNWRITABLE, ids=[u[0] for u in UNWRITABLE])
def test_run_refuses_an_out_it_cannot_write_before_running(small, tmp_path, monkeypatch, where, out, why):
    """QA: `run … --out /proc/x` ran the whole simulation, then `internal error: FileNotFoundError`, exit 1."""
    _no_run(monkeypatch)
    out, why = out.format(T=tmp_path), why.format(T=tmp_path)
    r = invoke("run", small, "--out", out, "--views", "summary")
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert r.stderr == f"error: --out: {out} — {why}; allowed: a directory under one you can write\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]


@needs_core
@pytest.mark.parametrize("verb", ["sweep", "advise"])
def test_sweep_and_advise_refuse_an_out_they_cannot_write_before_running(small, tmp_path, monkeypatch, verb):
    _no_run(monkeypatch)
    out = tmp_path / "small.toml" / "out"
    extra = ["--set", "scenario.seed=1,2"] if verb == "sweep" else ["--set", "zfs.tunables.zfs_scan_vdev_limit=4M"]
    r = invoke(verb, small, *extra, "--out", out, "--jobs", "1", "-q")
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert r.stderr == (f"error: --out: {out} — cannot create it (Not a directory); allowed: a directory you can "
                        "write, with room for the results\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]


@needs_core
def test_a_write_that_fails_at_the_end_is_one_line_and_leaves_nothing(small, tmp_path, monkeypatch):
    """A full disk after the run: one line naming --out and the file, exit 2, no partial
    directory (nor the parents the run made for it), no report on stdout."""
    import errno

    def full(path, table):
        path.write_bytes(b"PAR1")  # a part written, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files, "_write_parquet", full)
    out = tmp_path / "new" / "r"
    r = invoke("run", small, "--out", out, "-q")
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert r.stderr == (f"error: --out: {out} — cannot write series.parquet (No space left on device), nothing "
                        "written; allowed: a directory you can write, with room for the results\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.toml"]


@needs_core
def test_a_sweep_table_that_cannot_be_written_is_one_line(small, tmp_path, monkeypatch):
    import errno

    import ziosim.sweep.execute as execute

    real = execute.write_atomic

    def full(path, text=None, table=None):
        if table is not None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, text, table)

    monkeypatch.setattr(execute, "write_atomic", full)
    out = tmp_path / "sw"
    r = invoke("sweep", small, "--set", "scenario.seed=1,2", "--out", out, "--jobs", "1", "-q")
    assert r.exit_code == 2 and r.stdout == "", r.stderr
    assert r.stderr == (f"error: --out: {out} — cannot write sweep.parquet (No space left on device); allowed: a "
                        "directory you can write, with room for the results\n")
    assert not (out / "sweep.parquet").exists() and not list(out.glob(".sweep.parquet.tmp-*"))


# ----------------------------------------------------------------------------- modes follow the umask


def test_write_outputs_and_write_atomic_follow_the_umask(tmp_path, umask):
    results = json.loads((FIXTURES / "results_raidz2.json").read_text())
    meta = json.loads((FIXTURES / "meta_raidz2.json").read_text())
    out = tmp_path / "r"
    paths = files.write_outputs(out, results, meta)
    assert mode(out) == 0o777 & ~umask
    assert {mode(p) for p in paths} == {0o666 & ~umask}
    write_atomic(tmp_path / "a.json", "{}\n")
    assert mode(tmp_path / "a.json") == 0o666 & ~umask


@needs_core
def test_sweep_advise_and_import_outputs_follow_the_umask(small, tmp_path, umask):
    """sweep.json, sweep.parquet, advice.json and tradeoff.svg were 0600, the run and point
    directories 0700, whatever the umask."""
    fmode, dmode = 0o666 & ~umask, 0o777 & ~umask
    sw = tmp_path / "sw"
    r = invoke("sweep", small, "--set", "scenario.seed=1,2", "--out", sw, "-q", "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert mode(sw / "sweep.json") == fmode and mode(sw / "sweep.parquet") == fmode
    points = [p for p in (sw / "points").iterdir()]
    assert len(points) == 2 and {mode(p) for p in points} == {dmode}
    assert {mode(f) for p in points for f in p.iterdir()} == {fmode}
    adv = tmp_path / "adv"
    r = invoke("advise", small, "--set", "zfs.tunables.zfs_scan_vdev_limit=4M", "--out", adv, "-q", "--jobs", "1")
    assert r.exit_code == 0, r.stderr
    assert mode(adv / "advice.json") == fmode and mode(adv / "tradeoff.svg") == fmode
    run = tmp_path / "run"
    assert invoke("run", small, "--out", run, "-q").exit_code == 0
    assert mode(run) == dmode and {mode(f) for f in run.iterdir()} == {fmode}
    imported = tmp_path / "tank.toml"
    r = invoke("import", FIXTURES / "import" / "freebsd-gptid-scrub.txt", "--out", imported, "-q")
    assert r.exit_code == 0, r.stderr
    assert mode(imported) == fmode


@needs_core
def test_the_umask_of_a_real_process_is_followed(small, tmp_path):
    """The installed entry point, umask 027 set before it starts (read once, from /proc on Linux)."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT / "python"))
    out = tmp_path / "r"
    p = subprocess.run([sys.executable, "-m", "ziosim", "run", str(small), "--out", str(out), "-q"],
                       capture_output=True, text=True, env=env, preexec_fn=lambda: os.umask(0o027))
    assert p.returncode == 0, p.stderr
    assert mode(out) == 0o750 and {mode(f) for f in out.iterdir()} == {0o640}

"""Whole-command tests of the CLI: arguments → exit code, stdout, stderr (NO_COLOR=1).

In-process through typer's CliRunner with the fake core and fake report in sys.modules;
one subprocess test checks the real entry point prints no traceback.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ziosim.cli import app, first_difference

import fake_core
from conftest import BAD, ROOT, SCENARIOS

pytestmark = pytest.mark.usefixtures("fake_core", "fake_report")

ENV = {"NO_COLOR": "1", "COLUMNS": "100"}


def _runner():
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def invoke(*args):
    return _runner().invoke(app, [str(a) for a in args], env=ENV)


def test_run_prints_the_report_and_writes_outputs(tmp_path, fake_report):
    out = tmp_path / "o"
    r = invoke("run", SCENARIOS / "default.toml", "--out", out)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ziosim ") and "default  release zfs-2.2  seed 0  scenario " in lines[0]
    assert "  users: p99 8000000 ns" in lines
    assert (out / "summary.json").is_file()
    # stderr: one log line, no progress bar (not a terminal)
    (log,) = r.stderr.splitlines()
    assert log.startswith(f"wrote {out} — 240s simulated, 240000 events, digest ")  # the fake core: 1000 events/s
    assert fake_report.CALLS == [("render_text", fake_report.DEFAULT_VIEWS), ("write_outputs", str(out))]


def test_a_run_shorter_than_a_tenth_of_a_second_is_not_zero_seconds(tmp_path):
    """QA F8: `--stop 1ms` ended with `wrote … — 0.0s simulated` under a summary of 0.001s."""
    r = invoke("run", SCENARIOS / "default.toml", "--out", tmp_path / "o", "--stop", "1ms")
    assert r.exit_code == 0, r.stderr
    assert f"wrote {tmp_path / 'o'} — 0.001s simulated, " in r.stderr


def test_stop_option_says_which_actions_and_workloads_it_cuts_off(tmp_path):
    """`--stop` shorter than the scenario left its later actions out without a word, and a
    workload starting after it was refused as being "after scenario.stop" (the file's stop)."""
    src = (SCENARIOS / "default.toml").read_text().replace('arc_hit = 0.0', 'arc_hit = 0.0\nstart = "45s"')
    (tmp_path / "s.toml").write_text(src)
    r = invoke("run", tmp_path / "s.toml", "--out", tmp_path / "o", "--stop", "30s")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        "note: --stop 30s ends the run before action[0] (scrub at 1m), workload[0] (users from 45s); not run")
    r = invoke("run", tmp_path / "s.toml", "--out", tmp_path / "o2", "--stop", "50s")
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == "note: --stop 50s ends the run before action[0] (scrub at 1m); not run"
    r = invoke("run", tmp_path / "s.toml", "--out", tmp_path / "o3", "--stop", "2m", "--quiet")
    assert r.exit_code == 0 and r.stderr == ""


def test_run_no_plots_reaches_write_outputs(tmp_path, fake_report):
    out = tmp_path / "o"
    r = invoke("run", SCENARIOS / "default.toml", "--out", out, "--no-plots")
    assert r.exit_code == 0, r.stderr
    assert fake_report.CALLS[-1] == ("write_outputs", str(out), "no plots")


def test_run_passes_meta_and_views(tmp_path, fake_report, monkeypatch):
    seen = {}
    real = fake_report.render_text

    def spy(results, meta, views):
        seen.update(meta=meta, views=views, results=results)
        return real(results, meta, views)

    monkeypatch.setattr(fake_report, "render_text", spy)
    r = invoke(
        "run",
        SCENARIOS / "one-disk-qd1.toml",
        "--out",
        tmp_path / "o",
        "--views",
        "iostat, latency",
        "--seed",
        "9",
        "--stop",
        "2s",
    )
    assert r.exit_code == 0, r.stderr
    meta = seen["meta"]
    assert set(meta) == {
        "name",
        "seed",
        "release",
        "scenario_hash",
        "version",
        "config",
        "scenario_path",
        "hz",
        "platform",
    }
    assert meta["platform"] == "linux"
    assert (meta["name"], meta["seed"], meta["release"], meta["hz"]) == ("one-disk-qd1", 9, "zfs-2.2", 250)
    assert meta["config"]["stop_ns"] == 2 * 10**9 and meta["config"]["seed"] == 9
    assert meta["scenario_path"].endswith("one-disk-qd1.toml")
    assert seen["views"] == ["iostat", "latency"]
    assert seen["results"]["sim_time_ns"] == 2 * 10**9


def test_run_set_overrides_fields_before_validation(tmp_path, fake_report, monkeypatch):
    seen = {}
    real = fake_report.render_text

    def spy(results, meta, *views):
        seen.update(meta=meta)
        return real(results, meta, *views)

    monkeypatch.setattr(fake_report, "render_text", spy)
    base = invoke("run", SCENARIOS / "one-disk-qd1.toml", "--out", tmp_path / "a", "--stop", "1s")
    assert base.exit_code == 0, base.stderr
    base_hash = seen["meta"]["scenario_hash"]
    r = invoke(
        "run", SCENARIOS / "one-disk-qd1.toml", "--out", tmp_path / "b", "--stop", "1s",
        "--set", "zfs.tunables.zfs_vdev_sync_read_max_active=4", "--set", "workload[qd1].threads=3",
    )
    assert r.exit_code == 0, r.stderr
    cfg = seen["meta"]["config"]
    assert cfg["tunables"] == {"zfs_vdev_sync_read_max_active": 4}
    assert cfg["workloads"][0]["threads"] == 3
    assert seen["meta"]["scenario_hash"] != base_hash  # the override is part of what ran


@pytest.mark.parametrize(
    "opt, message",
    [
        ("zfs.tunables.zfs_scrub_delay=0,1", "error: --set zfs.tunables.zfs_scrub_delay: 2 values — allowed: one value"),
        ("zfs.tunables.zfs_vdev_sync_read_max_active=0", "error: zfs.tunables.zfs_vdev_sync_read_max_active: 0 — out of range"),
        ("pool.vdevs[7].disks=2", "error: --set: pool.vdevs[7].disks — pool.vdevs has 1 element(s)"),
        ("threads", 'error: --set: "threads" — allowed: field=value'),
    ],
)
def test_run_bad_set_exits_2_with_one_line(tmp_path, opt, message):
    r = invoke("run", SCENARIOS / "one-disk-qd1.toml", "--out", tmp_path / "o", "--set", opt)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0].startswith(message), r.stderr
    assert not r.stderr.splitlines()[1:] or r.stderr.splitlines()[1].startswith("hint: ")
    assert not (tmp_path / "o").exists()


def test_run_set_hints_show_runs_own_syntax(tmp_path):
    """`run` takes one value per --set; its hints used to show the sweep's comma list
    (`zfs.sync=standard,disabled`), which `run` then refused. They show field=value, and
    following the hint runs."""
    cases = [
        ("--stop", 'error: --set: "--stop" — allowed: field=value, e.g. zfs.sync=disabled'),
        ("zfs.sync=", "error: --set zfs.sync: no value — allowed: field=value"),
        ("zfs.sync=standard,", "error: --set zfs.sync: 2 values — allowed: one value per field here; "
                               "`ziosim sweep` runs one point per value"),
    ]
    for opt, line in cases:
        for verb in ("run", "check-determinism"):
            r = invoke(verb, SCENARIOS / "one-disk-qd1.toml", "--set", opt)
            assert r.exit_code == 2 and r.stderr == line + "\n", (verb, r.stderr)
            assert "[,value" not in r.stderr and "standard,disabled" not in r.stderr
    r = invoke("run", SCENARIOS / "one-disk-qd1.toml", "--out", tmp_path / "o", "--set", "zfs.sync=disabled")
    assert r.exit_code == 0, r.stderr
    # sweep takes the comma list, and its hint still shows it (test_cli_inputs.py).


@pytest.mark.parametrize("release, largest, refused, allowed", [
    ("illumos-2012", "128K", "1M", "allowed on illumos-2012: a power of two from 512 to 128K (SPA_MAXBLOCKSIZE before "
     "large blocks); up to 1M from release illumos-2014"),
    ("illumos-2014", "1M", "2M", "allowed on illumos-2014: a power of two from 512 to 1M (the release's default maximum: "
     "zfs_max_recordsize, not a ziosim tunable); up to 16M from release zfs-2.2"),
    ("zfs-2.1", "1M", "16M", "allowed on zfs-2.1: a power of two from 512 to 1M (the release's default maximum: "
     "zfs_max_recordsize, not a ziosim tunable); up to 16M from release zfs-2.2"),
    ("zfs-2.2", "16M", "32M", "allowed: a power of two from 512 to 16M"),
])
def test_run_refuses_a_recordsize_above_the_releases_maximum(tmp_path, release, largest, refused, allowed):
    """QA finding: 16M records ran on illumos-2012 and zfs-2.1 (and 1M on solaris-2009)."""
    base = ["run", SCENARIOS / "one-disk-qd1.toml", "--set", f'zfs.release="{release}"',
            "--set", 'workload[qd1].size="4K"']
    r = invoke(*base, "--out", tmp_path / "no", "--set", f'pool.recordsize="{refused}"')
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f'error: pool.recordsize: "{refused}" — {allowed}\n'
    assert not (tmp_path / "no").exists()
    r = invoke(*base, "--out", tmp_path / "yes", "--set", f'pool.recordsize="{largest}"')
    assert r.exit_code == 0, r.stderr


def test_run_set_is_in_the_reproduce_line(tmp_path, fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "PANIC", True)
    r = invoke(
        "run", SCENARIOS / "default.toml", "--seed", "5", "--out", tmp_path / "o",
        "--set", "zfs.tunables.zfs_vdev_scrub_max_active=3",
    )
    assert r.exit_code == 1
    assert r.stderr.rstrip().endswith(
        f"reproduce: ziosim run {SCENARIOS / 'default.toml'} --out {tmp_path / 'o'} --seed 5 "
        "--set zfs.tunables.zfs_vdev_scrub_max_active=3)"
    )


def test_the_reproduce_line_is_the_whole_command_line_quoted(tmp_path, fake_core, monkeypatch):
    """It used to keep only the scenario, --seed, --stop and --set: --out, --views and the
    flags that decide what fails were dropped. Now every option given is in it, quoted for a
    shell, and the seed the run used is pinned when the command line gave none."""
    import shlex

    monkeypatch.setattr(fake_core, "PANIC", True)
    out = tmp_path / "my out"
    args = ["run", str(SCENARIOS / "default.toml"), "--stop", "1s", "--set", "zfs.tunables.zfs_vdev_scrub_max_active = 3",
            "--set", "scenario.name=x", "--out", str(out), "--views", "status,latency", "--no-plots", "-q"]
    r = invoke(*args)
    assert r.exit_code == 1
    (line,) = r.stderr.splitlines()
    repro = line.split("(please report; reproduce: ", 1)[1][:-1]
    assert repro == (f"ziosim run {SCENARIOS / 'default.toml'} --out '{out}' --stop 1s "
                     "--set 'zfs.tunables.zfs_vdev_scrub_max_active = 3' --set scenario.name=x "
                     "--views status,latency --quiet --no-plots --seed 0")
    words = shlex.split(repro)
    assert words[0] == "ziosim" and sorted(words[1:-2]) == sorted(args[:8] + ["--out", str(out), "--views",
                                                                               "status,latency", "--quiet", "--no-plots"])
    # The same line, run again, fails again the same way (and names the same command, the
    # seed now among the options as given).
    again = invoke(*words[1:])
    assert again.exit_code == 1
    head, _, tail = again.stderr.partition("(please report; reproduce: ")
    assert head == line.split("(please report; reproduce: ")[0]
    assert sorted(shlex.split(tail.rstrip()[:-1])) == sorted(words)


def test_run_default_outdir_is_out_slash_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke("run", SCENARIOS / "one-disk-seq.toml", "--quiet")
    assert r.exit_code == 0
    assert (tmp_path / "out" / "one-disk-seq" / "summary.json").is_file()
    assert r.stderr == ""  # --quiet: nothing on stderr


def test_run_json_puts_summary_on_stdout(tmp_path):
    out = tmp_path / "o"
    r = invoke("run", SCENARIOS / "default.toml", "--out", out, "--json", "--quiet")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc == json.loads((out / "summary.json").read_text())
    assert doc["release"] == "zfs-2.2" and doc["seed"] == 0 and len(doc["scenario_hash"]) == 16


def test_run_json_renders_no_text_report(tmp_path, fake_report):
    # The text report of a long run on many disks takes longer than the run; --json
    # prints summary.json instead, so the report is not rendered only to be dropped.
    r = invoke("run", SCENARIOS / "default.toml", "--out", tmp_path / "o", "--json", "--quiet")
    assert r.exit_code == 0
    assert fake_report.CALLS == [("write_outputs", str(tmp_path / "o"))]


@pytest.mark.parametrize("name", sorted(p.name for p in BAD.glob("*.toml")))
def test_bad_scenarios_exit_2_with_one_error_line(name, tmp_path):
    from test_scenario import BAD_EXPECTED

    r = invoke("run", BAD / name, "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stdout == ""
    expected = BAD_EXPECTED[name].splitlines()
    assert r.stderr.splitlines() == [f"error: {expected[0]}"] + expected[1:]
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_missing_file_exits_2(tmp_path):
    r = invoke("run", tmp_path / "nope.toml")
    assert r.exit_code == 2
    assert r.stderr == f"error: {tmp_path / 'nope.toml'}: no such file — allowed: a path to a scenario .toml file\n"


def test_bad_stop_option_names_the_field(tmp_path):
    # The option, not the scenario field it overrides (scenario.md, "Errors").
    r = invoke("run", SCENARIOS / "default.toml", "--stop", "soon", "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stderr.startswith('error: --stop: "soon" — allowed: a duration')
    r = invoke("run", SCENARIOS / "default.toml", "--stop", "0s", "--out", tmp_path / "o")
    assert r.stderr == 'error: --stop: "0s" — out of range; allowed: more than 0, at most 400d\n'



def test_unknown_view_is_a_usage_error(tmp_path):
    r = invoke("run", SCENARIOS / "default.toml", "--views", "iostat,bogus", "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stderr == "error: --views: \"iostat,bogus\" — unknown view 'bogus'; known: status, iostat, latency\n"
    assert not (tmp_path / "o").exists()


def test_unknown_option_is_usage_error():
    r = invoke("run", "--bogus")
    assert r.exit_code == 2
    assert r.stderr == ("error: --bogus: no such option of ziosim run — allowed: what 'ziosim run --help' lists\n"
                        "hint: did you mean --out?\n")


@pytest.mark.parametrize("args, line", [
    (("advise", "x.toml", "--knobs", "5"), "error: --knobs: 5 — out of range; allowed: an integer 1..4"),
    (("advise", "x.toml", "--knobs=0"), "error: --knobs: 0 — out of range; allowed: an integer 1..4"),
    (("advise", "x.toml", "--knobs", "two"), 'error: --knobs: "two" — not an integer; allowed: an integer 1..4'),
    (("advise", "x.toml", "--tolerance", "2"), "error: --tolerance: 2 — out of range; allowed: a number 0.0..1.0"),
    (("run", "x.toml", "--seed", "abc"),
     'error: --seed: "abc" — not an integer; allowed: an integer 0..18446744073709551615'),
    (("sweep", "x.toml", "-j0"), "error: -j: 0 — out of range; allowed: an integer, at least 1"),
    (("sweep", "x.toml", "--jobs", "0"), "error: --jobs: 0 — out of range; allowed: an integer, at least 1"),
    (("advise", "x.toml", "--knobs"), "error: --knobs: no value — allowed: an integer 1..4"),
    (("run",), "error: SCENARIO: missing — allowed: a path"),
    (("rn", "x.toml"), 'error: "rn": no such command — allowed: run, sweep, compare, advise, import, '
                       "check-determinism, validate, tunables, presets\nhint: did you mean run?"),
])
def test_option_parser_errors_are_one_line_naming_option_value_and_allowed(args, line):
    """Not click's usage block (three lines, without the value)."""
    r = invoke(*args)
    assert r.exit_code == 2
    assert r.stderr == line + "\n"
    assert r.stdout == ""


def test_help_and_a_bare_command_still_print_help():
    assert invoke("--help").exit_code == 0
    assert "Usage: ziosim run" in invoke("run", "--help").stdout
    bare = invoke()
    assert bare.exit_code == 2 and "Usage: ziosim" in (bare.stdout + bare.stderr)


def test_interrupt_exits_130_and_writes_nothing(tmp_path, fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "NS_PER_EVENT", 1000)  # many chunks
    monkeypatch.setattr(fake_core, "INTERRUPT_AFTER_STEPS", 2)
    r = invoke("run", SCENARIOS / "default.toml", "--out", tmp_path / "o")
    assert r.exit_code == 130
    assert r.stderr == "interrupted; nothing written\n"
    assert r.stdout == ""
    assert not (tmp_path / "o").exists()


def test_panic_is_an_internal_error_with_a_reproduce_line(tmp_path, fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "PANIC", True)
    r = invoke("run", SCENARIOS / "default.toml", "--seed", "5", "--stop", "1s", "--out", tmp_path / "o")
    assert r.exit_code == 1
    note, line = r.stderr.splitlines()
    assert note == "note: --stop 1s ends the run before action[0] (scrub at 1m); not run"
    assert line.startswith("internal error: RuntimeError: panic in the core")
    assert line.endswith(f"(please report; reproduce: ziosim run {SCENARIOS / 'default.toml'} --out {tmp_path / 'o'} "
                         "--seed 5 --stop 1s)")


def test_an_internal_error_without_its_own_reproduce_line_gets_the_command(tmp_path, monkeypatch):
    from ziosim import runner
    from ziosim.errors import InternalError

    def broken(sc):
        raise InternalError("an invariant broke")

    monkeypatch.setattr(runner, "meta", broken)
    r = invoke("run", SCENARIOS / "one-disk-qd1.toml", "--stop", "1s", "--out", tmp_path / "o")
    assert r.exit_code == 1
    assert r.stderr == (f"internal error: an invariant broke (please report; reproduce: ziosim run "
                        f"{SCENARIOS / 'one-disk-qd1.toml'} --out {tmp_path / 'o'} --stop 1s --seed 0)\n")


def test_core_rejection_is_an_input_error(tmp_path, fake_core, monkeypatch):
    class Rejecting(fake_core.Simulation):
        def __init__(self, config_json):
            raise ValueError("pool.vdevs[0]: raidz2 wider than the core supports")

    monkeypatch.setattr(fake_core, "Simulation", Rejecting)
    r = invoke("run", SCENARIOS / "default.toml", "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert r.stderr == "error: pool.vdevs[0]: raidz2 wider than the core supports\n"


def test_check_determinism_identical():
    r = invoke("check-determinism", SCENARIOS / "one-disk-qd1.toml", "--stop", "5s")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("identical (digest ") and r.stdout.endswith(")\n")


def test_check_determinism_names_the_first_difference(fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "NONDETERMINISTIC", True)
    r = invoke("check-determinism", SCENARIOS / "one-disk-qd1.toml", "--stop", "5s")
    assert r.exit_code == 1
    assert r.stdout.startswith("differ at workloads[0].latency_ns.p99: ")
    assert "reproduce: ziosim check-determinism " in r.stdout
    assert r.stdout.rstrip().endswith(f"reproduce: ziosim check-determinism {SCENARIOS / 'one-disk-qd1.toml'} "
                                      "--stop 5s --seed 0)")


def test_first_difference():
    assert first_difference({"a": [1, 2], "b": 1}, {"a": [1, 2], "b": 1}) is None
    assert first_difference({"a": [1, 2], "b": 1}, {"a": [1, 3], "b": 2}) == "a[1]"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "a[1]"
    assert first_difference({"a": 1}, {"a": 1, "c": 0}) == "c"
    assert first_difference({"x": {"y": 1.0}}, {"x": {"y": 1}}) == "x.y"  # 1.0 vs 1 is a divergence


def test_tunables_table_lists_names_defaults_and_trade_offs():
    r = invoke("tunables")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NAME", "UNIT", "DEFAULT", "BY", "RELEASE", "RANGE", "TRADE-OFF"]
    by_name = {ln.split()[0]: ln for ln in lines[1:]}
    assert len(by_name) == len(fake_core.TUNABLES)  # every declared tunable, once
    assert "illumos-2014+: 2; zfs-2.1+: 3" in by_name["zfs_vdev_scrub_max_active"]
    assert "35; freebsd-9+: 10; illumos-2014+: —" in by_name["zfs_vdev_max_pending"]
    assert "(16G RAM)" in by_name["zfs_dirty_data_max"] and "Default: min(RAM x" in by_name["zfs_dirty_data_max"]
    assert all(ln == ln.rstrip() for ln in lines)


def test_a_default_derived_from_ram_is_that_rams_not_a_placeholder():
    """QA F2: `ziosim tunables` gave zfs_dirty_data_max as 4294967296 (derived) whatever the
    RAM, and zfs_wrlog_data_max as 8589934592; a 16 GiB scenario runs 10 % and 2 × that."""
    def row(*args):
        r = invoke("tunables", "--release", "zfs-2.2", "--name", "data_max", *args)
        assert r.exit_code == 0, r.stderr
        return {ln.split()[0]: ln.split()[2:4] for ln in r.stdout.splitlines()[1:]}

    tenth = (16 << 30) * 10 // 100
    assert row()["zfs_dirty_data_max"] == [str(tenth), "(16G"]
    assert row()["zfs_wrlog_data_max"] == [str(2 * tenth), "(16G"]
    assert row("--ram", "64G")["zfs_dirty_data_max"] == [str(4 << 30), "(64G"]  # the 4 GiB cap
    assert row("--ram", "8G")["zfs_dirty_data_max_max"] == [str(2 << 30), "(8G"]  # 25 % below 16 GiB
    doc = json.loads(invoke("tunables", "--json", "--release", "zfs-2.2", "--name", "dirty_data_max",
                            "--ram", "8G").stdout)
    t = {d["name"]: d for d in doc}
    assert t["zfs_dirty_data_max"]["default"] == (8 << 30) * 10 // 100
    assert t["zfs_dirty_data_max"]["ram_bytes"] == 8 << 30 and "ram_bytes" not in t["zfs_dirty_data_max_percent"]
    r = invoke("tunables", "--ram", "1M")
    assert r.exit_code == 2 and r.stderr.startswith('error: --ram: "1M" — too small')


def test_tunables_for_one_release_and_filter():
    r = invoke("tunables", "--release", "zfs-2.0", "--name", "NIA")
    assert r.exit_code == 1 and r.stderr == "no tunables match\n"  # 2.0 has no nia tunables
    r = invoke("tunables", "--release", "zfs-2.1", "--name", "vdev_scrub")
    assert r.exit_code == 0
    rows = [ln.split()[:4] for ln in r.stdout.splitlines()[1:]]
    assert rows == [
        ["zfs_vdev_scrub_min_active", "count", "1", "1..1000"],
        ["zfs_vdev_scrub_max_active", "count", "3", "1..1000"],
    ]
    r = invoke("tunables", "--release", "zfs-2.1", "--name", "scrub_delay")
    assert r.exit_code == 1  # removed with the sorted scan in 0.8


def test_tunables_json():
    r = invoke("tunables", "--json", "--release", "illumos-2012", "--name", "pending")
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert [(t["name"], t["default"]) for t in doc] == [("zfs_vdev_max_pending", 10), ("zfs_vdev_min_pending", 4)]


def test_tunables_on_a_platform_name_what_to_set():
    r = invoke("tunables", "--release", "zfs-2.2", "--platform", "freebsd", "--name", "scrub_max")
    assert r.exit_code == 0
    header, row = r.stdout.splitlines()
    assert "ON FREEBSD" in header and "vfs.zfs.vdev.scrub_max_active" in row
    r = invoke("tunables", "--release", "freebsd-9", "--platform", "freebsd", "--name", "scrub_delay", "--json")
    assert json.loads(r.stdout)[0]["set_as"] == {"name": "vfs.zfs.scrub_delay", "runtime": True}
    r = invoke("tunables", "--platform", "linux")
    assert r.exit_code == 2 and "with --release" in r.stderr
    r = invoke("tunables", "--release", "zfs-2.2", "--platform", "illumos")
    assert r.exit_code == 2 and "zfs-2.2 ran on: linux, freebsd" in r.stderr


def test_tunables_bad_release():
    r = invoke("tunables", "--release", "zfs-9")
    assert r.exit_code == 2
    assert r.stderr.startswith('error: --release: "zfs-9" — allowed: solaris-2009, ')


def test_presets():
    r = invoke("presets")
    assert r.exit_code == 0
    names = [ln.split()[0] for ln in r.stdout.splitlines()[1:]]
    assert names == ["hdd-7200-sata-2014", "wd20efrx", "samsung-850pro"]
    assert "WD Red 2 TB" in r.stdout
    doc = json.loads(invoke("presets", "--json").stdout)
    assert doc["wd20efrx"]["spec"]["rpm"] == 5400


def test_version():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("ziosim ")


def test_every_option_has_help():
    import typer.main

    cmd = typer.main.get_command(app)
    for name, sub in cmd.commands.items():
        for p in sub.params:
            assert getattr(p, "help", None), f"{name} {p.name} has no help"


def test_subprocess_error_has_no_traceback(tmp_path):
    """The installed-style entry point: one error line on stderr, exit 2, nothing on stdout."""
    boot = (
        "import sys, fake_core, fake_report;"
        "sys.modules['ziosim._core'] = fake_core; sys.modules['ziosim.report'] = fake_report;"
        "from ziosim.cli import main; main()"
    )
    env = dict(
        os.environ, NO_COLOR="1", PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT / "tests" / "python")])
    )
    p = subprocess.run(
        [sys.executable, "-c", boot, "run", str(BAD / "raidz2-two-disks.toml")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr == "error: pool.vdevs[0].disks: 2 — too few for raidz2; allowed: at least 3\n"


@pytest.mark.needs_core
def test_real_core_same_seed_same_digest(tmp_path, monkeypatch):
    """Against the compiled core: two runs of a bundled scenario give one digest."""
    monkeypatch.delitem(sys.modules, "ziosim._core", raising=False)
    r = invoke("check-determinism", SCENARIOS / "one-disk-qd1.toml", "--stop", "2s")
    assert r.exit_code == 0, r.stdout + r.stderr


# --- snapshots: whole command runs, compared byte for byte ---------------------------
# Regenerate with ZIOSIM_UPDATE_SNAPSHOTS=1 and review the diff.

SNAPSHOTS = Path(__file__).parent / "snapshots"
SNAPSHOT_CASES = {
    "tunables-release-zfs-2.2.txt": ["tunables", "--release", "zfs-2.2"],
    "tunables-name-pending.txt": ["tunables", "--name", "pending"],
    "presets.txt": ["presets"],
    "run-unknown-tunable.txt": ["run", "tests/python/bad/unknown-tunable.toml"],
    "run-tunable-not-in-release.txt": ["run", "tests/python/bad/tunable-not-in-release.toml"],
    "check-determinism-qd1.txt": ["check-determinism", "scenarios/one-disk-qd1.toml", "--stop", "5s"],
}


@pytest.mark.parametrize("snapshot", sorted(SNAPSHOT_CASES))
def test_snapshot(snapshot, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = SNAPSHOT_CASES[snapshot]
    r = invoke(*args)
    text = f"$ NO_COLOR=1 ziosim {' '.join(args)}\n{r.stdout}--- stderr\n{r.stderr}--- exit {r.exit_code}\n"
    path = SNAPSHOTS / snapshot
    if os.environ.get("ZIOSIM_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_interrupt_anywhere_exits_130(monkeypatch):
    import ziosim.cli as cli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.scenario_mod, "load", interrupted)
    r = invoke("check-determinism", SCENARIOS / "default.toml")
    assert (r.exit_code, r.stderr) == (130, "interrupted\n")


def test_sigterm_is_handled_as_ctrl_c_then_exits_143(tmp_path, fake_core, monkeypatch):
    # timeout, systemd and batch schedulers send SIGTERM: main() raises it as an interrupt,
    # so a run's clean-up runs (here: nothing written), and exits 128 + 15.
    import signal

    import ziosim.cli as cli

    real_load = cli.scenario_mod.load

    def load_then_sigterm(*a, **k):
        sc = real_load(*a, **k)
        os.kill(os.getpid(), signal.SIGTERM)
        return sc

    monkeypatch.setattr(cli.scenario_mod, "load", load_then_sigterm)
    monkeypatch.setattr(sys, "argv", ["ziosim", "run", str(SCENARIOS / "default.toml"), "--out", str(tmp_path / "o"), "-q"])
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 143
    assert not (tmp_path / "o").exists() and not list(tmp_path.iterdir())
    assert signal.getsignal(signal.SIGTERM) is before  # put back

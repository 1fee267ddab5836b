"""Input errors of the command line that come before any scenario is validated: options
checked before the file is read and named as the option (docs/scenario.md, "Errors"), and
files that cannot be read said in words, in the shape of every other error (QA pass:
`--seed -1` named scenario.seed; `ziosim run /tmp` printed `[Errno 21] Is a directory`).

In-process through typer's CliRunner, with the real report package (sweep and advise
import it) and no core: every case here is refused before a core is needed.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ziosim.cli import app

from conftest import SCENARIOS

ENV = {"NO_COLOR": "1", "COLUMNS": "100"}
SEED_ALLOWED = "allowed: an integer 0..18446744073709551615"
STOP_0 = 'error: --stop: "0s" — out of range; allowed: more than 0, at most 400d'


def invoke(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:  # click 8.2+ keeps stderr apart already
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args], env=ENV)


@pytest.mark.parametrize("args, line", [
    (("run", "{S}", "--seed", "-1"), f"error: --seed: -1 — out of range; {SEED_ALLOWED}"),
    (("run", "{S}", "--seed", "18446744073709551616"),
     f"error: --seed: 18446744073709551616 — out of range; {SEED_ALLOWED}"),
    (("check-determinism", "{S}", "--seed", "-1"), f"error: --seed: -1 — out of range; {SEED_ALLOWED}"),
    # Before the scenario is read: the missing file is not what is reported.
    (("run", "{T}/nonexist.toml", "--seed", "-1"), f"error: --seed: -1 — out of range; {SEED_ALLOWED}"),
    (("run", "{T}/nonexist.toml", "--stop", "0s"), STOP_0),
    (("check-determinism", "{T}/nonexist.toml", "--stop", "soon"), 'error: --stop: "soon" — allowed: a duration'),
    (("sweep", "{T}/nonexist.toml", "--stop", "0s"), STOP_0),
    (("advise", "{T}/nonexist.toml", "--stop", "0s"), STOP_0),
    # run's hint shows run's own form; the comma list is the sweep's (QA finding).
    (("run", "{T}/nonexist.toml", "--set", "threads"),
     'error: --set: "threads" — allowed: field=value, e.g. zfs.sync=disabled\n'),
    (("run", "{T}/nonexist.toml", "--set", "workload[0].threads=1,2"),
     "error: --set workload[0].threads: 2 values — allowed: one value per field here"),
    (("sweep", "{T}/nonexist.toml", "--set", "threads"),
     'error: --set: "threads" — allowed: field=value[,value…], e.g. zfs.sync=standard,disabled\n'),
    (("advise", "{T}/nonexist.toml", "--set", "threads"),
     'error: --set: "threads" — allowed: field=value[,value…], e.g. zfs.sync=standard,disabled\n'),
])
def test_options_are_checked_before_the_scenario_and_named_as_options(tmp_path, args, line):
    r = invoke(*[a.format(S=SCENARIOS / "one-disk-qd1.toml", T=tmp_path) for a in args])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(line) and r.stderr.count("\n") == 1, r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("verb", ["run", "check-determinism", "sweep", "advise"])
def test_a_directory_or_a_binary_file_as_the_scenario_is_one_line_in_words(tmp_path, verb):
    what = "sweep or scenario" if verb == "sweep" else "scenario"
    r = invoke(verb, tmp_path)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"error: {tmp_path}: is a directory — allowed: a path to a {what} .toml file\n"
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b'[scenario]\nname = "x"\n\xa6\x00\xff')
    r = invoke(verb, binary)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == (f"error: {binary}: not UTF-8 text (byte 0xa6 at offset 22, line 3) — allowed: a TOML {what} "
                        "file (UTF-8 text)\n")


def test_a_directory_given_to_import_is_one_line_in_words(tmp_path):
    r = invoke("import", tmp_path)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"error: {tmp_path}: is a directory — allowed: a text file with the output of zpool status\n"


def test_a_directory_as_a_trace_is_one_line_in_words(tmp_path):
    from ziosim import ScenarioError
    from ziosim import trace as T

    with pytest.raises(ScenarioError) as e:
        T.load(tmp_path, where="workload[0].trace: d")
    assert str(e.value) == "workload[0].trace: d: is a directory — allowed: a path to a trace file"

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
    (("run", "{T}/nonexist.toml", "--set", "threads"), 'error: --set: "threads" — allowed: field=value'),
    (("run", "{T}/nonexist.toml", "--set", "workload[0].threads=1,2"),
     "error: --set workload[0].threads: 2 values — allowed: one value per field here"),
    (("sweep", "{T}/nonexist.toml", "--set", "threads"), 'error: --set: "threads" — allowed: field=value'),
])
def test_options_are_checked_before_the_scenario_and_named_as_options(tmp_path, args, line):
    r = invoke(*[a.format(S=SCENARIOS / "one-disk-qd1.toml", T=tmp_path) for a in args])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(line) and r.stderr.count("\n") == 1, r.stderr
    assert list(tmp_path.iterdir()) == []

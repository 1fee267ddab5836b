"""``ziosim run --views``: checked against the release before anything is simulated."""

import pytest
from typer.testing import CliRunner

from conftest import SCENARIOS

pytestmark = pytest.mark.needs_core


def test_a_view_the_release_cannot_print_is_refused_before_the_run(tmp_path, monkeypatch):
    import ziosim.cli as cli

    def no_run(*a, **k):
        raise AssertionError("simulated before checking --views")

    monkeypatch.setattr(cli, "_run_once", no_run)
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    out = tmp_path / "o"
    r = runner.invoke(cli.app, ["run", str(SCENARIOS / "one-disk-qd1.toml"), "--views", "status-json", "--out", str(out)],
                      env={"NO_COLOR": "1"})
    assert r.exit_code == 2, r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith('error: --views: "status-json" — status-json is zpool status -j, which release zfs-2.2 ')
    assert not out.exists()

"""`ziosim validate` on the field cases that the model covers (needs the real core)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ziosim.cli import app

pytestmark = pytest.mark.needs_core


def test_busy_scrub_case_passes():
    r = CliRunner().invoke(app, ["validate", "busy-scrub", "--quiet"])
    assert r.exit_code == 0, r.stdout
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["figure", "reported"]
    assert lines[-1] == "2 passed, 0 failed"
    assert all(ln.endswith("ok") for ln in lines[1:-1])


def test_nia_throttle_case_passes():
    r = CliRunner().invoke(app, ["validate", "nia-throttle", "--quiet"])
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines()[-1] == "3 passed, 0 failed"


def test_unknown_case_is_a_usage_error():
    r = CliRunner().invoke(app, ["validate", "no-such-case"])
    assert r.exit_code == 2

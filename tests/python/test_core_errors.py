"""Errors the core finds in a scenario that validates in Python (runner.py names the field
the user wrote, not the run config's key): run with the real core."""

import re

import pytest

from ziosim import ScenarioError, scenario

from conftest import SCENARIOS

pytestmark = pytest.mark.needs_core


@pytest.mark.parametrize(("key", "value", "allowed"), [("fill", "1", "at most about 0.991"),
                                                       ("allocated", "3990000000000", "allowed: at most about 39")])
def test_a_pool_too_full_for_its_parity_names_the_field_written(key, value, allowed):
    # The core checks that data, parity, padding and metadata fit; its error named its own
    # config key (pool.layout: layout.allocated_bytes). It names the user's field now, with
    # the largest value that would fit.
    from ziosim import runner

    text = (SCENARIOS / "default.toml").read_text()
    text = re.sub(r"^(fill|allocated) = .*$", f"{key} = {value}", text, flags=re.M)
    with pytest.raises(ScenarioError) as e:
        runner.run(scenario.loads(text, path="x.toml"))
    line = e.value.line
    assert line.startswith(f"pool.{key}: {value.strip(chr(34))} — does not fit: vdev raidz2-0 would need "), line
    assert allowed in line and "\n" not in line

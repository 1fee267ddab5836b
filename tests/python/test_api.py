"""The Python API: ziosim.run_scenario and the runner's stepping loop."""

import pytest

import ziosim
from ziosim import runner, scenario

from conftest import SCENARIOS

pytestmark = pytest.mark.usefixtures("fake_core")


def test_run_scenario_returns_the_results_document():
    r = ziosim.run_scenario(SCENARIOS / "one-disk-qd1.toml", stop="3s", seed=1)
    assert r["sim_time_ns"] == 3 * 10**9
    assert [leaf["name"] for leaf in r["leaves"]] == ["sda"]
    assert r["workloads"][0]["name"] == "qd1"


def test_exceptions_are_the_documented_types():
    assert issubclass(ziosim.ScenarioError, ValueError)
    assert issubclass(ziosim.InternalError, RuntimeError)
    with pytest.raises(ziosim.ScenarioError):
        ziosim.run_scenario(SCENARIOS / "one-disk-qd1.toml", stop="never")


def test_runner_steps_in_chunks_and_reports_progress(fake_core, monkeypatch):
    monkeypatch.setattr(fake_core, "NS_PER_EVENT", 10_000)  # 1 s = 100k events
    sc = scenario.load(SCENARIOS / "one-disk-qd1.toml", stop="1s")
    seen = []
    r = runner.run(sc, chunk=30_000, on_progress=lambda now, stop, ev: seen.append((now, stop, ev)))
    assert [ev for _, _, ev in seen] == [30_000, 60_000, 90_000, 100_000]
    assert seen[-1][0] == seen[-1][1] == 10**9
    assert r["events"] == 100_000


def test_a_core_that_makes_no_progress_is_an_internal_error(fake_core, monkeypatch):
    monkeypatch.setattr(fake_core.Simulation, "step_events", lambda self, n: False)
    sc = scenario.load(SCENARIOS / "one-disk-qd1.toml")
    with pytest.raises(ziosim.InternalError, match=r"no progress .*reproduce: ziosim run .*one-disk-qd1.toml --seed 0"):
        runner.run(sc)


def test_panics_become_internal_errors_with_the_seed(fake_core, monkeypatch):
    class PanicException(BaseException):  # what pyo3 raises for a Rust panic
        pass

    def boom(self, n):
        raise PanicException("index out of bounds")

    monkeypatch.setattr(fake_core.Simulation, "step_events", boom)
    sc = scenario.load(SCENARIOS / "one-disk-qd1.toml", seed=42)
    with pytest.raises(ziosim.InternalError) as e:
        runner.run(sc)
    assert e.value.seed == 42
    assert "PanicException: index out of bounds" in str(e.value)


def test_meta_carries_what_every_output_needs():
    sc = scenario.load(SCENARIOS / "default.toml")
    m = runner.meta(sc)
    assert m["scenario_hash"] == sc.hash and m["version"] == ziosim.__version__
    assert m["config"] is sc.config and m["hz"] == 250


def test_core_missing_is_a_clear_error(monkeypatch):
    import sys

    from ziosim import _native

    monkeypatch.setitem(sys.modules, "ziosim._core", None)  # makes the import fail
    with pytest.raises(_native.CoreMissing, match="maturin develop"):
        scenario.load(SCENARIOS / "default.toml")


@pytest.mark.parametrize(
    "release, platform",
    [("solaris-2009", "illumos"), ("illumos-2014", "illumos"), ("freebsd-9", "freebsd"), ("zfs-2.2", "linux")],
)
def test_platform_follows_the_release(release, platform):
    assert runner.platform(release) == platform

"""Shared fixtures: a fake `ziosim._core` (and a fake `ziosim.report`) in sys.modules.

The real core is detected before anything is faked: tests marked `needs_core` run only
when `ziosim._core` is importable; all other tests use the fake, so they pass on a
checkout where the Rust side has not been built.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
BAD = Path(__file__).resolve().parent / "bad"


def _real_core_available() -> bool:
    try:
        return importlib.util.find_spec("ziosim._core") is not None
    except (ImportError, ValueError):
        return False


REAL_CORE = _real_core_available()


def pytest_collection_modifyitems(config, items):
    if REAL_CORE:
        return
    skip = pytest.mark.skip(reason="ziosim._core is not built (maturin develop)")
    for item in items:
        if "needs_core" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def fake_core(monkeypatch):
    import fake_core as fc

    monkeypatch.setattr(fc, "NONDETERMINISTIC", False)
    monkeypatch.setattr(fc, "INTERRUPT_AFTER_STEPS", None)
    monkeypatch.setattr(fc, "PANIC", False)
    monkeypatch.setitem(sys.modules, "ziosim._core", fc)
    return fc


@pytest.fixture
def fake_report(monkeypatch):
    import fake_report as fr

    fr.CALLS.clear()
    monkeypatch.setitem(sys.modules, "ziosim.report", fr)
    return fr

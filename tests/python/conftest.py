"""Shared test setup.

* ``python/`` goes on ``sys.path`` so the source tree is importable without installing; if
  ``ziosim/__init__.py`` cannot be imported, ``ziosim`` is registered as a bare package so
  its pure-Python subpackages (``ziosim.report``) still load.
* A fake ``ziosim._core`` (and a fake ``ziosim.report``) for CLI/scenario tests; tests
  marked ``needs_core`` run only when the real ``ziosim._core`` is importable.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_DIR = ROOT / "python"
SCENARIOS = ROOT / "scenarios"
BAD = Path(__file__).resolve().parent / "bad"

if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

try:
    import ziosim  # noqa: F401
except ImportError:
    package = types.ModuleType("ziosim")
    package.__path__ = [str(PYTHON_DIR / "ziosim")]
    sys.modules["ziosim"] = package


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
